/**
 * board.js and board-view.js of the inspector page: the Board tab, where the page opens — every agent with
 * its task, what it is doing in words and for how long, step, tokens, cost and time; subagents under the
 * agent whose call started them; disposed agents greyed, below the live ones; each job as x of N finished.
 * The rows come from the logs the page holds, through `projectBoard` (board.ts, served as its source); a
 * live system's own job standings, when it sends them, count its jobs (`withSystemJobs`).
 */
import { estimateCost } from '../../providers/prices.ts';
import { boardFunctions } from '../board.ts';

/** board.js: the projection, served as its source (`__name`: see tree.js). */
export const boardScript = `import { projectAgentTree } from './tree.js';
const __name = (target) => target;
export { durationText, withSystemJobs };
/** As board.ts's: the tree and the runtime's estimate, both served as their source. */
export function projectBoard(logs, disposed = []) {
  return boardView({ tree: projectAgentTree(logs), logs, disposed, cost: estimateCost });
}
${estimateCost.toString()}
${boardFunctions.map((fn) => fn.toString()).join('\n')}
`;

export const boardViewScript = `
import { S, add, el, logOf, pageNow, redraw, setTab, travelTo } from './core.js';
import { durationText, projectBoard, withSystemJobs } from './board.js';

/** Every log the page holds, the known agents first (in the order the server lists them). */
function pageLogs() {
  const ids = [...S.agents.keys(), ...[...S.logs.keys()].filter((id) => !S.agents.has(id))];
  return new Map(ids.map((id) => [id, logOf(id).events.filter(Boolean)]));
}

function tokensText(t) {
  const parts = [t.inputTokens + ' in', t.outputTokens + ' out'];
  if (t.cacheReadTokens || t.cacheWriteTokens) parts.push('cache write ' + t.cacheWriteTokens + ' · read ' + t.cacheReadTokens);
  return parts.join(' · ') + ' tokens';
}

function select(id, tab) {
  S.selected = id; S.picked = null; S.contexts = null;
  void travelTo(S.source === 'recorded' ? logOf(id).events.length - 1 : null);
  setTab(tab); redraw();
}

function boardRow(r, now) {
  const box = el('div', 'board-row ' + r.status + (r.disposed ? ' disposed' : '') + (r.id === S.selected ? ' selected' : ''));
  box.dataset.boardAgent = r.id; box.dataset.status = r.status;
  box.style.marginLeft = r.depth * 24 + 'px';
  box.title = 'show its charts';
  box.onclick = () => select(r.id, 'charts');
  const transcript = el('button', 'to-transcript', 'transcript');
  transcript.onclick = (event) => { event.stopPropagation(); select(r.id, 'transcript'); };
  add(box, add(el('div', 'head'), r.depth ? el('span', 'note', '↳ ') : null, el('span', 'task', r.task),
    el('span', 'pill status ' + r.status, r.status), r.disposed ? el('span', 'pill disposed', 'disposed') : null, transcript));
  const active = r.status === 'running' || r.status === 'waiting';
  const lasted = active && r.since !== undefined && now !== undefined ? durationText(now - r.since) : '';
  add(box, el('div', 'doing', r.doing + (lasted ? ' for ' + lasted : '')));
  const end = active && !r.disposed ? now : r.lastAt;
  const meta = [r.id];
  if (r.startedBy) meta.push('started by ' + r.startedBy.tool + ' call ' + r.startedBy.callId + ' of ' + r.parent);
  if (r.job) meta.push(r.job.id + ' task ' + (r.job.index + 1) + ' of ' + r.job.tasks);
  if (r.turn !== undefined) meta.push('turn ' + r.turn + (r.step !== undefined ? ' step ' + r.step : ''));
  meta.push(tokensText(r.tokens), r.cost !== undefined ? '≈ $' + r.cost.toFixed(r.cost < 1 ? 4 : 2) : 'unknown price');
  const elapsed = r.startedAt !== undefined && end !== undefined ? durationText(end - r.startedAt) : '';
  if (elapsed) meta.push(elapsed);
  add(box, el('div', 'note meta', meta.join(' · ')));
  return box;
}

export function renderBoard(box) {
  const disposed = [...S.agents.values()].filter((a) => a.state === 'disposed').map((a) => a.id);
  const view = projectBoard(pageLogs(), disposed);
  const now = pageNow();
  for (const job of withSystemJobs(view.jobs, S.jobs)) {
    const line = job.id + ': ' + job.finished + '/' + job.tasks + ' finished' + (job.failed ? ' · ' + job.failed + ' failed' : '') +
      (job.running ? ' · ' + job.running + ' running' : '') + (job.notStarted ? ' · ' + job.notStarted + ' not started' : '');
    const row = el('div', 'board-job', line); row.dataset.job = job.id;
    box.appendChild(row);
  }
  const needle = S.board.text.trim().toLowerCase();
  const shown = view.rows.filter((r) => (S.board.state === 'all' || r.status === S.board.state) &&
    (!needle || (r.task + ' ' + r.id + ' ' + r.doing).toLowerCase().includes(needle)));
  document.getElementById('board-count').textContent = shown.length + ' of ' + view.rows.length + ' agents';
  const list = el('div', 'board');
  for (const r of shown) list.appendChild(boardRow(r, now));
  if (!view.rows.length) list.appendChild(el('div', 'empty', 'No agents yet. They appear here as soon as they are created.'));
  else if (!shown.length) list.appendChild(el('div', 'empty', 'No agent matches the filter.'));
  box.appendChild(list);
}
`;

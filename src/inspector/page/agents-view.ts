/**
 * agents.js of the inspector page: the Agents tab — every agent as the tree of who started whom, each with
 * its task, what it is doing and what it handed back, and the mail between them (who sent what to whom,
 * when). Both come from the logs the page holds, through `projectAgentTree` (tree.js); with time travel
 * on, they are cut at the time (the injected clock's `ts`) of the selected agent's event at that seq.
 */
import { agentTreeFunctions } from '../agent-tree.ts';

/**
 * tree.js: the projection, served as its source. `__name` is for a runtime that keeps function names
 * (tsx runs esbuild with `keepNames`, which wraps inner functions in `__name(fn, "name")`).
 */
export const treeScript = `const __name = (target) => target;
export { projectAgentTree };
${agentTreeFunctions.map((fn) => fn.toString()).join('\n')}
`;

export const agentsViewScript = `
import { S, add, el, logOf, redraw, travelTo } from './core.js';
import { machineLine } from './panels.js';
import { projectAgentTree } from './tree.js';
import { badge, clockTime as time } from './views.js';

/**
 * The time the page stands at: the selected agent's event at the travelled-to seq. Undefined (everything)
 * when not travelling or at the end of its log: a recording opens there, and the other agents' logs may go
 * on after the selected one's last event (a child's ends long before its parent's).
 */
function travelledTime() {
  if (S.travel === null || !S.selected) return undefined;
  const events = logOf(S.selected).events;
  if (S.travel >= events.length - 1) return undefined;
  const event = events[S.travel];
  return event ? event.ts : undefined;
}

/** Every log the page holds, the known agents first (in the order the server lists them). */
function pageLogs() {
  const ids = [...S.agents.keys(), ...[...S.logs.keys()].filter((id) => !S.agents.has(id))];
  return new Map(ids.map((id) => [id, logOf(id).events.filter(Boolean)]));
}

function agentNode(node) {
  const a = S.agents.get(node.id);
  const box = el('div', 'tree-node' + (node.id === S.selected ? ' selected' : ''));
  box.dataset.agentNode = node.id;
  box.style.marginLeft = node.depth * 22 + 'px';
  const id = el('button', 'id', node.id);
  id.title = 'select this agent';
  id.onclick = () => { S.selected = node.id; S.picked = null; S.contexts = null; void travelTo(S.source === 'recorded' ? logOf(node.id).events.length - 1 : null); redraw(); };
  const head = add(el('div', 'head'), node.depth ? el('span', 'note', '↳ ') : null, id, el('span', 'pill relation', node.relation),
    node.agentType ? el('span', 'pill type', node.agentType) : null, node.typed ? el('span', 'pill typed', 'typed') : null,
    el('span', 'pill activity ' + node.activity, node.activity), node.reason ? badge(node.reason) : null);
  head.querySelector('.activity').dataset.activity = node.activity;
  add(box, head);
  if (node.description) add(box, el('div', 'task', node.description));
  const r = node.restarts;
  if (r) add(box, el('div', 'note restarts', 'restarts: ' + r.count + (r.max !== undefined ? ' of ' + r.max : '') + ' — last after ' + r.lastReason + (r.lastError ? ': ' + r.lastError : '') + (r.backingOff ? ' (backing off)' : '')));
  if (node.waitingFor) add(box, el('div', 'note waiting-for', 'waiting for ' + node.waitingFor));
  // The chart state, for an agent that lives in this process (a recording has none: time travel draws it).
  const chart = S.travel === null && a && a.tree ? machineLine(a.tree) : '';
  if (chart) add(box, el('div', 'note chart-state', chart));
  if (node.prompt && node.prompt !== node.description) add(box, add(el('details', 'prompt'), el('summary', '', 'prompt'), el('pre', '', node.prompt)));
  if (!node.logged) add(box, el('div', 'note warn', 'its log is not here'));
  if (node.result !== undefined) add(box, add(el('div', 'result-box'), el('span', 'pill result', 'result'), el('pre', 'result-text', node.result)));
  return box;
}

function mailTable(mail) {
  const table = el('table', 'log mail');
  const head = el('tr'); for (const h of ['sent', 'from', 'to', 'what', 'text', 'received']) head.appendChild(el('th', '', h));
  table.appendChild(add(el('thead'), head));
  const body = el('tbody');
  for (const m of mail) {
    const row = el('tr', m.kind); row.dataset.mail = m.id; row.dataset.kind = m.kind;
    const what = add(el('td', 'type'), el('span', 'pill ' + (m.kind === 'result' ? 'result' : 'message'), m.kind), m.reason ? badge(m.reason) : null,
      m.byHost ? el('span', 'note', ' by the host') : null);
    add(row, el('td', 'time', time(m.sentAt)), el('td', 'from', m.from), el('td', 'to', m.to), what,
      add(el('td'), el('pre', 'mail-text', m.text)), el('td', 'time received', m.receivedAt === undefined ? 'not yet' : time(m.receivedAt)));
    body.appendChild(row);
  }
  return add(table, body);
}

export function renderAgentTree(box) {
  const until = travelledTime();
  const view = projectAgentTree(pageLogs(), until);
  if (until !== undefined) box.appendChild(el('div', 'note travel-note', 'As the logs stood at ' + time(until) + ' (seq ' + S.travel + ' of ' + S.selected + '): every agent and message logged by then.'));
  box.appendChild(el('h3', '', 'Agents'));
  const tree = el('div', 'agent-tree');
  for (const node of view.agents) tree.appendChild(agentNode(node));
  if (!view.agents.length) tree.appendChild(el('div', 'empty', 'No agents yet.'));
  box.appendChild(tree);
  box.appendChild(el('h3', '', 'Messages'));
  if (!view.mail.length) box.appendChild(el('div', 'empty no-mail', 'No messages between agents' + (until !== undefined ? ' by then.' : ' yet.')));
  else box.appendChild(mailTable(view.mail));
}
`;

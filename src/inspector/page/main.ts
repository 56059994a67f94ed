/** main.js of the inspector page: the tabs, the timeline over the session log, and the redraw. */
export const mainScript = String.raw`
import { renderAgentTree } from './agents.js';
import { renderBoard } from './board-view.js';
import { S, add, connect, el, logOf, onRender, redraw, setTab, travelTo } from './core.js';
import { renderAgents, renderCharts, renderTurns } from './panels.js';
import { travelBanner } from './travel.js';
import { renderInspection, renderLog, renderTranscript } from './views.js';

function renderTimeline() {
  const bar = document.getElementById('timeline'); bar.replaceChildren();
  const a = S.agents.get(S.selected);
  if (!a) return;
  const events = logOf(a.id).events.filter(Boolean);
  const last = Math.max(0, events.length - 1);
  const at = S.travel === null ? last : S.travel;
  const range = el('input'); range.type = 'range'; range.min = 0; range.max = last; range.value = at; range.id = 'seq';
  range.oninput = () => void travelTo(Number(range.value));
  const step = (delta) => { const b = el('button', '', delta < 0 ? '◀' : '▶'); b.onclick = () => void travelTo(Math.min(last, Math.max(0, at + delta))); return b; };
  const event = events[at];
  add(bar, el('b', '', 'Timeline'), step(-1), range, step(1),
    el('span', 'seq-label', 'seq ' + at + ' / ' + last + (event ? ' · ' + event.type + (event.turn !== undefined ? ' · turn ' + event.turn + (event.step !== undefined ? ' step ' + event.step : '') : '') : '')));
  if (S.source === 'live') {
    const live = el('button', S.travel === null ? 'on' : '', S.travel === null ? 'following live' : 'back to live');
    live.onclick = () => void travelTo(null);
    bar.appendChild(live);
  }
  const banner = document.getElementById('travel-banner'); banner.replaceChildren();
  const why = travelBanner();
  banner.hidden = !why;
  if (why) banner.appendChild(why);
}

onRender(() => {
  renderAgents(); renderTurns(); renderTimeline();
  const content = document.getElementById('content');
  const atBottom = content.scrollTop + content.clientHeight >= content.scrollHeight - 30;
  const top = content.scrollTop;
  content.replaceChildren();
  if (S.tab === 'board') renderBoard(content);
  else if (!S.selected) add(content, el('div', 'empty', 'No agents yet. They appear here as soon as they are created.'));
  else if (S.tab === 'charts') renderCharts(content);
  else if (S.tab === 'transcript') renderTranscript(content);
  else if (S.tab === 'log') renderLog(content);
  else if (S.tab === 'agents') renderAgentTree(content);
  else renderInspection(content);
  content.scrollTop = atBottom && S.tab !== 'charts' && S.tab !== 'board' ? content.scrollHeight : top;
});

for (const button of document.querySelectorAll('#tabs button')) {
  button.onclick = () => { setTab(button.dataset.tab); redraw(); };
}
// The page opens on the board; an address ending #charts (#transcript, …) opens on that tab.
const opening = location.hash.slice(1);
setTab(document.querySelector('#tabs button[data-tab="' + CSS.escape(opening) + '"]') ? opening : 'board');
const boardState = document.getElementById('board-state'); const boardText = document.getElementById('board-filter');
boardState.onchange = () => { S.board.state = boardState.value; redraw(); };
boardText.oninput = () => { S.board.text = boardText.value; redraw(); };
// While live, a running tool's "for 12 s" goes on: the board is drawn again each second.
setInterval(() => { if (S.tab === 'board' && S.source === 'live' && !document.hidden) redraw(); }, 1000);
const filter = document.getElementById('agent-filter');
filter.oninput = () => { S.filter = filter.value; redraw(); };
document.addEventListener('keydown', (event) => {
  if (S.travel === null || event.target.tagName === 'INPUT') return;
  if (event.key === 'ArrowLeft') void travelTo(Math.max(0, S.travel - 1));
  if (event.key === 'ArrowRight') void travelTo(S.travel + 1); // travelTo keeps it inside the log
});
connect();
`;

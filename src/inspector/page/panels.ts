/**
 * panels.js of the inspector page: the overview of every agent (filterable, as the tree of subagents,
 * each with its turn, step and batch state), the selected agent's charts, and its turns.
 */
export const panelsScript = String.raw`
import { S, add, el, loadContexts, redraw, stateName, travelTo, visibleEvents } from './core.js';
import { drawMachine } from './chart.js';
import { currentAnswer, renderPosition } from './travel.js';

const find = (node, id) => (node ? (node.children || []).find((c) => c.id === id) : undefined);
/** 'turn stepping · step requesting · batch running' for one agent's tree. */
export function machineLine(tree) {
  if (!tree) return '';
  const turn = find(tree, 'turn'); const step = find(turn, 'step'); const batch = find(step, 'batch');
  return [turn && 'turn ' + stateName(turn.value), step && 'step ' + stateName(step.value), batch && 'batch ' + stateName(batch.value)].filter(Boolean).join(' · ');
}

export function renderAgents() {
  const box = document.getElementById('agents'); box.replaceChildren();
  // Disposed agents stay (a selection is not lost) but go below the live ones, greyed.
  const all = [...S.agents.values()].sort((a, b) => (a.state === 'disposed') - (b.state === 'disposed'));
  const needle = S.filter.trim().toLowerCase();
  const matches = (a) => !needle || (a.id + ' ' + a.state + ' ' + machineLine(a.tree)).toLowerCase().includes(needle);
  const ordered = []; const seen = new Set();
  const byParent = new Map();
  for (const a of all) { const p = a.parent && S.agents.has(a.parent) ? a.parent : null; if (!byParent.has(p)) byParent.set(p, []); byParent.get(p).push(a); }
  const visit = (parent, depth) => { for (const a of byParent.get(parent) || []) { if (seen.has(a.id)) continue; seen.add(a.id); ordered.push([a, depth]); visit(a.id, depth + 1); } };
  visit(null, 0);
  let shown = 0;
  for (const [a, depth] of ordered) {
    if (!matches(a)) continue;
    shown++;
    const button = el('button', 'agent' + (a.id === S.selected ? ' selected' : '') + (a.state === 'disposed' ? ' disposed' : ''));
    button.dataset.agent = a.id;
    button.style.marginLeft = (depth * 16) + 'px'; button.style.width = 'calc(100% - ' + depth * 16 + 'px)';
    add(button, el('span', 'id', (depth ? '↳ ' : '') + a.id), document.createTextNode(' '), el('span', 'pill ' + a.state.replace(/\W/g, '_'), a.state));
    if (!a.live) add(button, document.createTextNode(' '), el('span', 'pill', a.state === 'disposed' ? 'ended' : 'recorded'));
    add(button, el('div', 'note', machineLine(a.tree) || (a.logLength + ' log events')));
    button.onclick = () => { S.selected = a.id; S.picked = null; S.contexts = null; if (S.source === 'recorded') void travelTo(a.logLength - 1); else void travelTo(null); redraw(); };
    box.appendChild(button);
  }
  document.getElementById('agent-count').textContent = shown + ' of ' + all.length;
}

const chartOf = { agent: 'agent', turn: 'turn', step: 'step', batch: 'batch' };
const firstOrder = ['batch', 'step', 'turn', 'call'];
const resting = ['created', 'idle', 'done'];

export function renderCharts(box) {
  const a = S.agents.get(S.selected);
  if (!a) return;
  let tree = a.tree;
  if (S.travel !== null) {
    const answer = currentAnswer();
    // Only a request still on its way computes; an answer without states shows the log's position instead.
    if (!answer) { box.appendChild(el('div', 'empty computing', 'Computing the states at seq ' + S.travel + '…')); return; }
    if (!answer.frame) { renderPosition(box, answer); return; }
    add(box, el('div', 'note travel-note', 'Every machine after seq ' + S.travel + ' — computed by re-running the log through the runtime.'));
    tree = answer.frame;
  }
  if (!tree) { box.appendChild(el('div', 'empty', 'A recording has no live machines: move the timeline to see them.')); return; }
  const calls = callStates(visibleEvents(a.id));
  const drawn = [];
  const walk = (node, key) => {
    const name = chartOf[node.id];
    if (name) drawn.push({ name, key, node, context: node.context });
    else if (node.id.startsWith('call:')) {
      const callId = node.id.slice(5); const state = calls.get(callId) || 'pending';
      drawn.push({ name: 'call', key, node: { value: state, status: node.status } });
    }
    for (const child of node.children || []) walk(child, key + '/' + child.id);
  };
  walk(tree, 'agent');
  // The innermost running machine first, then outward; a resting one after; the agent's lifecycle last.
  const rank = (d) => (d.key === 'agent' ? 9 : resting.includes(d.node.value) ? 7 : firstOrder.indexOf(d.name) < 0 ? 8 : firstOrder.indexOf(d.name));
  for (const d of drawn.sort((x, y) => rank(x) - rank(y))) box.appendChild(drawMachine(d.name, d.key, d.node, d.context));
  if (S.travel === null && S.picked && !S.contexts) void loadContexts();
}

/** Each call's state from the log (pending → awaiting_approval → running → done), as the server's LogPosition folds it. */
function callStates(events) {
  const states = new Map();
  for (const e of events) {
    const id = e.data && e.data.callId;
    if (!id) continue;
    if (e.type === 'tool.call') states.set(id, 'pending');
    else if (e.type === 'approval.asked') states.set(id, 'awaiting_approval');
    else if (e.type === 'approval.decided' && states.get(id) === 'awaiting_approval') states.set(id, 'pending');
    else if (e.type === 'tool.started') states.set(id, 'running');
    else if (e.type === 'tool.result') states.set(id, 'done');
  }
  return states;
}

// Present only when the server allows decisions: approve and deny go back with this token.
export const TOKEN = document.querySelector('meta[name="agentchart-token"]')?.getAttribute('content') || '';
async function decide(agentId, callId, verb, body) {
  const response = await fetch('/api/agents/' + encodeURIComponent(agentId) + '/calls/' + encodeURIComponent(callId) + '/' + verb,
    { method: 'POST', headers: { 'content-type': 'application/json', 'x-agentchart-token': TOKEN }, body: JSON.stringify(body) });
  if (!response.ok) alert('Could not ' + verb + ': ' + ((await response.json().catch(() => ({}))).error || response.status));
}
export function decisionButtons(agentId, callId, toolName) {
  const box = el('span', 'decide');
  const button = (label, action) => { const b = el('button', '', label); b.dataset.decide = label; b.onclick = action; return b; };
  // A plan is accepted with the mode to go on in (docs/tools-and-permissions.md, "Plan mode"); denying
  // keeps the agent planning.
  if (toolName === 'exit_plan_mode') return add(box,
    button('accept plan', () => decide(agentId, callId, 'approve', { mode: 'default' })),
    button('accept, allow edits', () => decide(agentId, callId, 'approve', { mode: 'accept-edits' })),
    button('keep planning', () => { const reason = prompt('What should change in the plan? (the model reads this)'); if (reason !== null) decide(agentId, callId, 'deny', reason ? { reason } : {}); }));
  return add(box,
    button('approve', () => decide(agentId, callId, 'approve', {})),
    button('for session', () => decide(agentId, callId, 'approve', { remember: 'session' })),
    button('deny', () => { const reason = prompt('Why? (the model reads this)'); if (reason !== null) decide(agentId, callId, 'deny', reason ? { reason } : {}); }));
}
export function renderTurns() {
  const box = document.getElementById('turns'); box.replaceChildren();
  const a = S.agents.get(S.selected);
  if (!a) return;
  if (!a.turns.length) box.appendChild(el('div', 'note', 'No turn yet.'));
  for (const t of a.turns) {
    const turn = add(el('div', 'turn'), el('b', '', 'turn ' + t.turn + ' '), el('span', 'pill ' + (t.reason || t.state), t.reason || t.state),
      t.compactions ? el('span', 'note', ' compacted' + (t.compactions > 1 ? ' ×' + t.compactions : '')) : null);
    for (const s of t.steps) {
      add(turn, add(el('div', ''), el('span', '', 'step ' + s.step + ' '), el('span', 'pill ' + s.state, s.state.replace('_', ' ')),
        s.attempts ? el('span', 'note', ' retry ' + s.attempts) : null));
      for (const c of s.calls) add(turn, add(el('div', 'call'), el('span', '', c.name), el('span', 'pill ' + (c.outcome || c.state), c.outcome || c.state.replace('_', ' ')),
        TOKEN && c.state === 'awaiting_approval' ? decisionButtons(a.id, c.callId) : null));
    }
    box.appendChild(turn);
  }
}
`;

/**
 * The inspector page's script: plain DOM, no framework, text set with `textContent` only (agent output
 * is never parsed as HTML). It keeps per-agent logs and streaming text, and redraws once per frame.
 */
export const pageScript = String.raw`
'use strict';
const S = { source: '', agents: new Map(), logs: new Map(), streaming: new Map(), inspection: [],
  selected: null, tab: 'transcript', dirty: false, follow: true };
const MAX_INSPECTION = 1000;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function add(parent, ...kids) { for (const kid of kids) if (kid) parent.appendChild(kid); return parent; }
function stateName(value) {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  return Object.entries(value).map(([k, v]) => { const inner = stateName(v); return inner ? k + '.' + inner : k; }).join(',');
}
function json(value) { try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); } }

function logOf(id) { let log = S.logs.get(id); if (!log) { log = { events: [], loaded: false }; S.logs.set(id, log); } return log; }
function addEvents(id, events) {
  const log = logOf(id);
  for (const event of events) {
    if (log.events[event.seq]) continue;
    log.events[event.seq] = event;
    if (event.type === 'assistant.message' || event.type === 'turn.end') S.streaming.delete(id);
  }
}
async function loadLog(id) {
  try {
    const response = await fetch('/api/agents/' + encodeURIComponent(id) + '/log');
    if (!response.ok) return;
    const body = await response.json();
    addEvents(id, body.events);
    logOf(id).loaded = true;
    redraw();
  } catch (error) { console.warn('inspector: could not load the log of ' + id, error); }
}

function onMessage(m) {
  switch (m.kind) {
    case 'snapshot':
      S.source = m.source; document.getElementById('title').textContent = m.title;
      document.getElementById('source').textContent = m.source === 'live' ? 'live' : 'recorded (read-only)';
      S.agents = new Map(m.agents.map((a) => [a.id, a]));
      for (const a of m.agents) { addEvents(a.id, a.recent); void loadLog(a.id); }
      if (!S.selected || !S.agents.has(S.selected)) S.selected = m.agents.length ? m.agents[0].id : null;
      break;
    case 'agent':
      if (!S.agents.has(m.agent.id)) void loadLog(m.agent.id);
      S.agents.set(m.agent.id, m.agent);
      if (!S.selected) S.selected = m.agent.id;
      break;
    case 'log': addEvents(m.agentId, [m.event]); break;
    case 'delta': {
      const cur = S.streaming.get(m.agentId);
      if (cur && cur.turn === m.turn && cur.step === m.step) { cur[m.thinking ? 'thinking' : 'text'] += m.text; }
      else S.streaming.set(m.agentId, { turn: m.turn, step: m.step, text: m.thinking ? '' : m.text, thinking: m.thinking ? m.text : '' });
      break;
    }
    case 'reset': S.inspection.push({ kind: 'note', text: 'fell behind: ' + m.dropped + ' messages dropped, resynced' }); break;
    default:
      S.inspection.push(m);
      if (S.inspection.length > MAX_INSPECTION) S.inspection.splice(0, S.inspection.length - MAX_INSPECTION);
  }
  redraw();
}

function redraw() { if (S.dirty) return; S.dirty = true; requestAnimationFrame(render); }
function render() {
  S.dirty = false;
  renderAgents(); renderMachines(); renderTurns();
  const content = document.getElementById('content');
  const atBottom = content.scrollTop + content.clientHeight >= content.scrollHeight - 30;
  content.replaceChildren();
  if (!S.selected) add(content, el('div', 'empty', 'No agents yet. They appear here as soon as they are created.'));
  else if (S.tab === 'transcript') renderTranscript(content);
  else if (S.tab === 'log') renderLog(content);
  else renderInspection(content);
  if (atBottom) content.scrollTop = content.scrollHeight;
}

function renderAgents() {
  const box = document.getElementById('agents'); box.replaceChildren();
  const all = [...S.agents.values()];
  const ordered = []; const visit = (parent) => { for (const a of all) if ((a.parent || null) === parent && !ordered.includes(a)) { ordered.push(a); visit(a.id); } };
  visit(null); for (const a of all) if (!ordered.includes(a)) ordered.push(a);
  for (const a of ordered) {
    const button = el('button', 'agent' + (a.id === S.selected ? ' selected' : '') + (a.parent ? ' child' : ''));
    add(button, el('span', 'id', a.id), document.createTextNode(' '), el('span', 'pill ' + a.state.replace(/\W/g, '_'), a.state));
    if (!a.live) add(button, document.createTextNode(' '), el('span', 'pill', a.state === 'disposed' ? 'ended' : 'recorded'));
    add(button, el('div', 'note', a.logLength + ' log events' + contextNote(a.context) + (a.parent ? ' · subagent of ' + a.parent : '')));
    button.onclick = () => { S.selected = a.id; redraw(); };
    box.appendChild(button);
  }
}

function renderMachine(node) {
  const chart = CHARTS[node.id];
  const box = el('div', 'machine');
  add(box, el('div', 'name', node.id + (node.status !== 'active' ? ' (' + node.status + ')' : '')));
  if (chart) {
    const states = el('div', 'states'); const active = stateName(node.value); const top = active.split('.')[0];
    for (const [name] of chart) states.appendChild(el('span', 'st' + (name === top ? ' active' : ''), name === top && active !== top ? active.split('.').join(' › ') : name));
    box.appendChild(states);
  } else if (node.value !== null && node.value !== undefined) box.appendChild(el('div', 'states', stateName(node.value)));
  const kids = el('div', 'kids');
  for (const child of node.children || []) kids.appendChild(renderMachine(child));
  return add(box, kids);
}
function renderMachines() {
  const box = document.getElementById('machines'); box.replaceChildren();
  const a = S.agents.get(S.selected);
  if (!a) return;
  if (a.tree) box.appendChild(renderMachine(a.tree));
  else box.appendChild(el('div', 'note', 'A recording has no live machines: its final state is ' + a.state + '.'));
}
// Present only when the server allows decisions: approve and deny go back with this token.
const TOKEN = document.querySelector('meta[name="agentchart-token"]')?.getAttribute('content') || '';
async function decide(agentId, callId, verb, body) {
  const response = await fetch('/api/agents/' + encodeURIComponent(agentId) + '/calls/' + encodeURIComponent(callId) + '/' + verb,
    { method: 'POST', headers: { 'content-type': 'application/json', 'x-agentchart-token': TOKEN }, body: JSON.stringify(body) });
  if (!response.ok) alert('Could not ' + verb + ': ' + ((await response.json().catch(() => ({}))).error || response.status));
}
function decisionButtons(agentId, callId) {
  const box = el('span', 'decide');
  const button = (label, action) => { const b = el('button', '', label); b.onclick = action; return b; };
  return add(box,
    button('approve', () => decide(agentId, callId, 'approve', {})),
    button('for session', () => decide(agentId, callId, 'approve', { remember: 'session' })),
    button('deny', () => { const reason = prompt('Why? (the model reads this)'); if (reason !== null) decide(agentId, callId, 'deny', reason ? { reason } : {}); }));
}
function renderTurns() {
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

// The input tokens of the first request after each compaction: what the compaction brought the context to.
function tokensAfterCompactions(events) {
  const after = new Map();
  let waiting = [];
  for (const e of events) {
    if (e.type === 'compaction') waiting.push(e.seq);
    else if (e.type === 'assistant.message' && waiting.length) {
      const u = e.data.usage;
      for (const seq of waiting) after.set(seq, u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens);
      waiting = [];
    }
  }
  return after;
}
function tokens(n) { return Number(n).toLocaleString('en-US'); }
// ' · context 3,812 / 200,000 tokens (2%)', or nothing before the first answered request.
function contextNote(c) {
  if (!c || !c.usedTokens) return '';
  if (!c.contextWindow || c.contextWindow >= Number.MAX_SAFE_INTEGER) return ' · context ' + tokens(c.usedTokens) + ' tokens';
  return ' · context ' + tokens(c.usedTokens) + ' / ' + tokens(c.contextWindow) + ' tokens (' + Math.round(c.usedTokens / c.contextWindow * 100) + '%)';
}

function renderTranscript(box) {
  const events = logOf(S.selected).events.filter(Boolean);
  const compactedTo = tokensAfterCompactions(events);
  const tools = new Map();
  for (const e of events) {
    const d = e.data;
    switch (e.type) {
      case 'turn.start': box.appendChild(el('div', 'divider', 'Turn ' + e.turn)); break;
      case 'user.message': add(box, add(el('div', 'msg user'), el('div', 'who', d.channel === 'followup' ? 'user' : 'user (' + d.channel + ')'), document.createTextNode(d.content))); break;
      case 'inbox.queued': if (d.channel !== 'followup') box.appendChild(el('div', 'note', 'queued for the next step (' + d.channel + '): ' + d.message)); break;
      case 'assistant.message': if (d.text) add(box, add(el('div', 'msg'), el('div', 'who', 'assistant' + (d.interrupted ? ' (interrupted)' : '')), document.createTextNode(d.text))); vendorContent(box, d); break;
      case 'assistant.attempt': box.appendChild(el('div', 'note warn', 'model error (' + d.error.kind + '): ' + d.error.message + ' — attempt ' + d.attempt + (d.retryInMs === undefined ? ', the last' : ', retrying in ' + d.retryInMs + ' ms'))); break;
      case 'tool.call': {
        const card = el('div', 'tool'); const pill = el('span', 'pill pending', 'pending'); const head = el('div', 'head');
        add(card, add(head, el('b', '', d.name), pill, el('span', 'note', d.callId)), el('pre', '', json(d.input)));
        tools.set(d.callId, { card, pill, head }); box.appendChild(card); break;
      }
      case 'approval.asked': { const t = tools.get(d.callId); if (t) { t.pill.className = 'pill awaiting_approval'; t.pill.textContent = 'awaiting approval';
        if (TOKEN) { t.buttons = decisionButtons(S.selected, d.callId); t.head.appendChild(t.buttons); } } break; }
      case 'approval.decided': { const t = tools.get(d.callId); if (t) t.buttons?.remove(); if (t && d.by !== 'mode') t.card.appendChild(el('div', 'note ' + (d.outcome === 'deny' ? 'bad' : ''), '  ' + d.outcome + ' by ' + d.by + (d.reason ? ': ' + d.reason : ''))); break; }
      case 'tool.started': { const t = tools.get(d.callId); if (t) { t.pill.className = 'pill running'; t.pill.textContent = 'running'; } break; }
      case 'tool.result': { const t = tools.get(d.callId); if (t) { t.buttons?.remove(); t.pill.className = 'pill ' + d.outcome; t.pill.textContent = d.outcome; t.card.appendChild(el('pre', '', d.content)); } break; }
      case 'turn.end': box.appendChild(el('div', 'note ' + (d.reason === 'completed' ? '' : 'bad'), 'Turn ' + e.turn + ' ended: ' + d.reason + (d.usage ? ' · ' + d.usage.inputTokens + ' in / ' + d.usage.outputTokens + ' out tokens' : ''))); break;
      case 'agent.spawned': box.appendChild(el('div', 'note', 'spawned subagent ' + d.childSessionId)); break;
      case 'compaction': {
        const after = compactedTo.get(e.seq);
        const head = 'Compacted events ' + d.replaces[0] + '–' + d.replaces[1] + ' (' + d.trigger + '): ' +
          tokens(d.tokensBefore) + ' → ' + (after === undefined ? '…' : tokens(after)) + ' tokens';
        box.appendChild(add(el('details', 'compaction'), el('summary', '', head), el('pre', '', d.summary)));
        break;
      }
      case 'session.end': box.appendChild(el('div', 'divider', 'Session ended')); break;
    }
  }
  const live = S.streaming.get(S.selected);
  if (live) {
    if (live.thinking) add(box, add(el('div', 'msg'), el('div', 'who', 'thinking'), document.createTextNode(live.thinking)));
    add(box, add(el('div', 'msg streaming'), el('div', 'who', 'assistant (streaming)'), document.createTextNode(live.text)));
  }
  if (!events.length) box.appendChild(el('div', 'empty', 'Loading the log…'));
}
// What the provider ran on its side (server tools, MCP, web search, code execution) and the sources cited.
function vendorContent(box, d) {
  const ran = (d.providerParts || []).filter((p) => p.data && (p.data.providerExecuted === true ||
    /^(server_tool_use|mcp_tool_use|mcp_list_tools|compaction)$|_call$/.test(p.type) && !/^(function_call|custom_tool_call)$/.test(p.type)))
    .map((p) => p.data.toolName || p.data.name || p.type.replace(/_call$/, '').replace(/_/g, ' '));
  if (ran.length) box.appendChild(el('div', 'note', 'run by the provider: ' + ran.join(', ')));
  const asked = (d.providerParts || []).filter((p) => p.type === 'mcp_approval_request' || p.type === 'tool-approval-request');
  for (const p of asked) box.appendChild(el('div', 'note warn', 'approval asked on the provider\'s side for ' + (p.data.name || p.data.toolCallId) + ': declined'));
  const seen = new Set();
  const list = el('div', 'note');
  for (const c of d.citations || []) {
    const where = c.url || c.fileId || c.source;
    if (seen.has(where)) continue;
    seen.add(where);
    const link = el('a', '', (c.title ? c.title + ' — ' : '') + where);
    if (/^https?:/.test(c.url || '')) { link.href = c.url; link.target = '_blank'; link.rel = 'noopener noreferrer'; }
    add(list, document.createTextNode(seen.size === 1 ? 'sources: ' : ' · '), link);
  }
  if (seen.size) box.appendChild(list);
}
function renderLog(box) {
  const table = el('table', 'log');
  for (const e of logOf(S.selected).events.filter(Boolean)) {
    const row = el('tr');
    const details = add(el('details'), el('summary', '', json(e.data).slice(0, 140).replace(/\s+/g, ' ')), el('pre', '', json(e.data)));
    add(row, el('td', '', e.seq), el('td', '', e.turn === undefined ? '' : e.turn + (e.step === undefined ? '' : '.' + e.step)), el('td', 'type', e.type), add(el('td'), details));
    table.appendChild(row);
  }
  box.appendChild(table);
}
function renderInspection(box) {
  const lines = S.inspection.filter((m) => m.kind === 'note' || m.agentId === S.selected || m.agentId === '').slice(-400).map((m) => {
    const where = m.path ? (m.path.length ? m.path.join('/') : 'agent') : '';
    switch (m.kind) {
      case 'actor': return '+ ' + where + ' (' + m.src + ')';
      case 'state': return '  ' + where + ' → ' + (stateName(m.value) || '·') + (m.status !== 'active' ? ' [' + m.status + ']' : '') + '   on ' + m.event;
      case 'event': return '  ' + where + ' ← ' + m.type;
      case 'action': return '  ' + where + ' ! ' + m.type;
      case 'progress': return '  progress ' + m.callId + ' ' + JSON.stringify(m.progress);
      case 'error': return '! ' + m.message;
      default: return '  ' + (m.text || m.kind);
    }
  });
  box.appendChild(el('div', 'insp', lines.join('\n') || 'No inspection events yet (they start when this page connects).'));
}

for (const button of document.querySelectorAll('#tabs button')) {
  button.onclick = () => { S.tab = button.dataset.tab; for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b === button); redraw(); };
}
const stream = new EventSource('/events');
const conn = document.getElementById('conn');
stream.onopen = () => { conn.textContent = 'connected'; conn.className = 'badge on'; };
stream.onerror = () => { conn.textContent = S.source === 'recorded' ? 'idle' : 'reconnecting'; conn.className = 'badge off'; };
stream.onmessage = (event) => onMessage(JSON.parse(event.data));
`;

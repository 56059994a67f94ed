/**
 * core.js of the inspector page: the page's state, DOM helpers and the server's stream. Plain DOM, no
 * framework; text is set with `textContent` only (agent output is never parsed as HTML).
 */
export const coreScript = String.raw`
export const S = { source: '', agents: new Map(), logs: new Map(), streaming: new Map(), inspection: [],
  selected: null, tab: 'board', board: { state: 'all', text: '' }, clockAt: null, dirty: false, travel: null, answer: null, machines: new Map(),
  filter: '', logFilter: { type: '', turn: '', step: '', text: '' }, picked: null, contexts: null,
  views: new Map(), jobs: undefined };
const MAX_INSPECTION = 1000;
const listeners = [];
export function onRender(fn) { listeners.push(fn); }

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
export function add(parent, ...kids) { for (const kid of kids) if (kid) parent.appendChild(kid); return parent; }
export function stateName(value) {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  return Object.entries(value).map(([k, v]) => { const inner = stateName(v); return inner ? k + '.' + inner : k; }).join(',');
}
export function json(value) { try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); } }
export function logOf(id) { let log = S.logs.get(id); if (!log) { log = { events: [], loaded: false }; S.logs.set(id, log); } return log; }
/** The events of the selected agent, up to the travelled-to seq when time travel is on. */
export function visibleEvents(id) {
  const events = logOf(id).events.filter(Boolean);
  return S.travel === null ? events : events.filter((e) => e.seq <= S.travel);
}
/** The tab shown, its button lit; the board's filters show with the board only. */
export function setTab(tab) {
  S.tab = tab;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.tab === tab);
  document.getElementById('board-bar').hidden = tab !== 'board';
}
/**
 * The time now on the logs' clock (the injected one): live, the latest ts seen plus the page's time since it
 * came (so a running tool's "for 12 s" goes on); for a recording, its latest ts.
 */
export function pageNow() {
  if (!S.clockAt) return undefined;
  return S.source === 'live' ? S.clockAt.ts + Math.max(0, Date.now() - S.clockAt.at) : S.clockAt.ts;
}
function addEvents(id, events) {
  const log = logOf(id);
  for (const event of events) {
    if (log.events[event.seq]) continue;
    log.events[event.seq] = event;
    if (Number.isFinite(event.ts) && (!S.clockAt || event.ts > S.clockAt.ts)) S.clockAt = { ts: event.ts, at: Date.now() };
    if (event.type === 'assistant.message' || event.type === 'turn.end') S.streaming.delete(id);
  }
}
/** GETs JSON; a failure of any kind is { error } saying what failed, so no view waits on it for ever. */
async function getJson(path) {
  try {
    const response = await fetch(path);
    const body = await response.json().catch(() => undefined);
    if (response.ok && body && typeof body === 'object') return { body };
    const said = body && (body.note || body.error);
    return { body, error: 'the inspector answered ' + response.status + (said ? ': ' + said : '') };
  } catch (error) { return { error: 'the inspector could not be reached (' + (error && error.message || error) + ')' }; }
}
async function loadLog(id) {
  const { body, error } = await getJson('/api/agents/' + encodeURIComponent(id) + '/log');
  const log = logOf(id);
  if (error) log.error = 'The log could not be loaded: ' + error;
  else { addEvents(id, body.events); log.loaded = true; log.error = undefined; }
  redraw();
}
/** Asks the server for every machine's state after event seq (time travel), then redraws. */
export async function travelTo(seq) {
  const a = S.agents.get(S.selected);
  // The timeline ends at the log's last event (the arrow keys would step past it).
  if (seq !== null && a) seq = Math.max(0, Math.min(seq, Math.max(0, a.logLength - 1, logOf(a.id).events.length - 1)));
  S.travel = seq; S.picked = null; redraw();
  if (seq === null || !S.selected) { S.answer = null; return; }
  const agent = S.selected;
  const { body, error } = await getJson('/api/agents/' + encodeURIComponent(agent) + '/travel?seq=' + seq);
  // A failed request is an answer too: its note is the banner, and nothing shows "Computing…" for ever.
  const answer = error ? { seq, computedUpTo: -1, note: body && body.note ? body.note : 'time travel failed: ' + error } : body;
  if (S.travel === seq && S.selected === agent) { S.answer = answer; redraw(); }
}
export async function loadContexts() {
  // The charts ask on every redraw until an answer is in: one request at a time.
  if (!S.selected || S.contextsLoading) return;
  S.contextsLoading = true;
  const { body, error } = await getJson('/api/agents/' + encodeURIComponent(S.selected) + '/contexts');
  // Not null on failure: the charts ask again while contexts are null, which would loop.
  S.contexts = error ? {} : body; S.contextsError = error; S.contextsLoading = false;
  redraw();
}
function clock() { const d = new Date(); return d.toTimeString().slice(0, 8) + '.' + String(d.getMilliseconds()).padStart(3, '0'); }

function onMessage(m) {
  switch (m.kind) {
    case 'snapshot': {
      S.source = m.source; document.getElementById('title').textContent = m.title;
      document.getElementById('source').textContent = m.source === 'live' ? 'live' : 'recorded (read-only)';
      S.agents = new Map(m.agents.map((a) => [a.id, a])); S.jobs = m.jobs;
      for (const a of m.agents) { addEvents(a.id, a.recent); void loadLog(a.id); }
      if (!S.selected || !S.agents.has(S.selected)) S.selected = m.agents.length ? m.agents[0].id : null;
      if (m.source === 'recorded' && S.selected && S.travel === null) void travelTo(S.agents.get(S.selected).logLength - 1);
      break;
    }
    case 'agent':
      if (!S.agents.has(m.agent.id)) void loadLog(m.agent.id);
      S.agents.set(m.agent.id, m.agent);
      if (!S.selected) S.selected = m.agent.id;
      break;
    case 'log': addEvents(m.agentId, [m.event]); break;
    case 'jobs': S.jobs = m.jobs; break;
    case 'delta': {
      const cur = S.streaming.get(m.agentId);
      if (cur && cur.turn === m.turn && cur.step === m.step) { cur[m.thinking ? 'thinking' : 'text'] += m.text; }
      else S.streaming.set(m.agentId, { turn: m.turn, step: m.step, text: m.thinking ? '' : m.text, thinking: m.thinking ? m.text : '' });
      break;
    }
    case 'reset': S.inspection.push({ kind: 'note', at: clock(), text: 'fell behind: ' + m.dropped + ' messages dropped, resynced' }); break;
    default:
      S.inspection.push({ ...m, at: clock() });
      if (S.inspection.length > MAX_INSPECTION) S.inspection.splice(0, S.inspection.length - MAX_INSPECTION);
  }
  redraw();
}

export function redraw() { if (S.dirty) return; S.dirty = true; requestAnimationFrame(render); }
function render() { S.dirty = false; for (const fn of listeners) fn(); }

export function connect() {
  const stream = new EventSource('/events');
  const conn = document.getElementById('conn');
  stream.onopen = () => { conn.textContent = 'connected'; conn.className = 'badge on'; };
  stream.onerror = () => { conn.textContent = S.source === 'recorded' ? 'recording loaded' : 'reconnecting'; conn.className = 'badge ' + (S.source === 'recorded' ? '' : 'off'); };
  stream.onmessage = (event) => onMessage(JSON.parse(event.data));
}
`;

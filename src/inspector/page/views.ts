/**
 * views.js of the inspector page: the transcript, the session log as a filterable table, and the
 * inspection events — each cut at the travelled-to seq when time travel is on.
 */
import { estimateCost } from '../../providers/prices.ts';

export const viewsScript = String.raw`
import { S, add, el, json, logOf, redraw, visibleEvents } from './core.js';
import { TOKEN, decisionButtons } from './panels.js';
import { vendorContent } from './vendor.js';

/** What each outcome or stop reason means, for its badge's explanation. */
export const WHY = {
  error: 'The tool failed: it threw, or reported an error. Its message is the result the model reads.',
  denied: 'Not run: a deny rule, the permission mode, the host or a person refused the call.',
  timeout: 'The tool ran past its timeout and was stopped.',
  aborted: 'Cancelled while it ran (a cancel or dispose); its result says so to the model.',
  aborted_before_start: 'Cancelled before it started: it never ran.',
  unknown: 'The process stopped while the tool ran; repair cannot know what it did, and tells the model to check.',
  not_started: 'The process stopped before the tool started; repair marked it as never run.',
  model_error: 'The model request failed and retries were used up (or the error was not retryable).',
  canceled: 'The turn was cancelled (by the user, a parent agent, dispose or a hook).',
  blocked: 'A pre-step hook vetoed the step.',
  max_steps: 'The turn reached the step limit (limits.maxSteps).',
  max_tokens: 'The model stopped at its output token limit.',
  unknown_tool_limit: 'The model kept calling tools that do not exist (limits.maxUnknownToolCalls).',
  interrupted: 'The process stopped mid-turn; crash repair closed the turn.',
};
/** A log's ts as a time of day; a time no Date can hold (a hostile log) is shown as the number. */
export function clockTime(ts) {
  if (typeof ts !== 'number') return '';
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? String(ts) : date.toISOString().slice(11, 23);
}

export function badge(kind, text) {
  const span = el('span', 'pill ' + kind, text || kind);
  if (WHY[kind]) { span.title = WHY[kind]; return add(el('span', 'why'), span, el('span', 'explain', WHY[kind])); }
  return span;
}
/** A tool result as text, unified-diff lines coloured. */
export function resultText(content) {
  const pre = el('pre', 'result');
  for (const line of String(content).split('\n')) {
    const cls = /^\+(?!\+\+)/.test(line) ? 'add' : /^-(?!--)/.test(line) ? 'del' : /^@@/.test(line) ? 'hunk' : '';
    pre.appendChild(el('span', cls ? 'diff ' + cls : '', line + '\n'));
  }
  return pre;
}

/** The prices a session.start recorded, if they are four finite numbers (a log is outside input). */
function recordedPrices(config) {
  const p = config && config.prices;
  const ok = p && ['input', 'output', 'cacheRead', 'cacheWrite'].every((k) => Number.isFinite(p[k]) && p[k] >= 0);
  return ok ? p : undefined;
}
/** A turn's tokens as the terminal prints them: the cache split when there is one, and the estimate. */
export function usageText(recorded, prices) {
  const usage = {}; // a log written before cache tokens were counted lacks them: read them as 0
  for (const k of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens']) usage[k] = Number(recorded[k]) || 0;
  const parts = [usage.inputTokens + ' in'];
  if (usage.cacheReadTokens > 0 || usage.cacheWriteTokens > 0) {
    parts.push('cache write ' + usage.cacheWriteTokens, 'cache read ' + usage.cacheReadTokens);
  }
  parts.push(usage.outputTokens + ' out tokens');
  if (prices) {
    const dollars = estimateCost(usage, prices);
    parts.push('≈ $' + dollars.toFixed(dollars < 1 ? 4 : 2));
  }
  return parts.join(' · ');
}
// The runtime's own estimate, served as its compiled source: one formula for the terminal and the page.
${estimateCost.toString()}

export function renderTranscript(box) {
  const events = visibleEvents(S.selected);
  const tools = new Map();
  let prices; // the list prices session.start recorded, for each turn's estimate
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
        card.dataset.call = d.callId;
        add(card, add(head, el('b', '', d.name), pill, el('span', 'note', d.callId)), el('pre', '', json(d.input)));
        tools.set(d.callId, { card, pill, head, name: d.name }); box.appendChild(card); break;
      }
      case 'approval.asked': { const t = tools.get(d.callId); if (t) { t.pill.className = 'pill awaiting_approval'; t.pill.textContent = 'awaiting approval';
        if (TOKEN && S.travel === null) { t.buttons = decisionButtons(S.selected, d.callId, t.name); t.head.appendChild(t.buttons); } } break; }
      case 'approval.decided': { const t = tools.get(d.callId); if (t) t.buttons?.remove(); if (t && d.by !== 'mode') t.card.appendChild(el('div', 'note ' + (d.outcome === 'deny' ? 'bad' : ''), '  ' + d.outcome + ' by ' + d.by + (d.reason ? ': ' + d.reason : ''))); break; }
      case 'hook.decided': { const t = d.callId && tools.get(d.callId); const text = d.point + ' hook ' + d.hook + ': ' + d.outcome + (d.reason ? ' (' + d.reason + ')' : '');
        if (t) t.card.appendChild(el('div', 'note ' + (d.outcome === 'pass' ? '' : 'warn'), '  ' + text)); else box.appendChild(el('div', 'note', text)); break; }
      case 'tool.started': { const t = tools.get(d.callId); if (t) { t.pill.className = 'pill running'; t.pill.textContent = 'running'; } break; }
      case 'tool.result': { const t = tools.get(d.callId); if (t) { t.buttons?.remove(); t.pill.replaceWith(badge(d.outcome)); t.card.appendChild(resultText(d.content)); } break; }
      case 'session.start': prices = recordedPrices(d.config); break;
      case 'turn.end': add(box, add(el('div', 'note turn-end'), document.createTextNode('Turn ' + e.turn + ' ended: '), badge(d.reason), document.createTextNode(d.usage ? ' · ' + usageText(d.usage, prices) : ''))); break;
      case 'output.checked': box.appendChild(el('div', 'note ' + (d.valid ? '' : 'warn'), 'output check ' + d.attempt + (d.valid ? ': passed' : ' failed: ' + d.error))); break;
      case 'agent.spawned': box.appendChild(el('div', 'note', 'spawned subagent ' + d.childSessionId)); break;
      case 'compaction': box.appendChild(add(el('details', 'compaction'), el('summary', '', 'Compacted events ' + d.replaces[0] + '–' + d.replaces[1] + ' (' + d.trigger + ')'), el('pre', '', d.summary))); break;
      case 'session.end': box.appendChild(el('div', 'divider', 'Session ended')); break;
    }
  }
  const live = S.travel === null && S.streaming.get(S.selected);
  if (live) add(box, add(el('div', 'msg streaming'), el('div', 'who', 'assistant (streaming)'), document.createTextNode(live.text)));
  const log = logOf(S.selected);
  if (log.error) box.appendChild(el('div', 'note bad log-error', log.error));
  else if (!events.length) box.appendChild(el('div', 'empty', 'Loading the log…'));
}

function filterBar(types) {
  const f = S.logFilter; const bar = el('div', 'filters');
  const input = (name, placeholder, width) => { const i = el('input'); i.placeholder = placeholder; i.value = f[name]; i.dataset.filter = name; i.style.width = width;
    i.oninput = () => { f[name] = i.value; redraw(); }; return i; };
  const select = el('select'); select.dataset.filter = 'type';
  for (const t of ['', ...types]) { const o = el('option', '', t || 'every type'); o.value = t; if (t === f.type) o.selected = true; select.appendChild(o); }
  select.onchange = () => { f.type = select.value; redraw(); };
  return add(bar, select, input('turn', 'turn', '60px'), input('step', 'step', '60px'), input('text', 'search the data…', '240px'));
}
export function renderLog(box) {
  const all = visibleEvents(S.selected); const f = S.logFilter;
  const events = all.filter((e) => (!f.type || e.type === f.type) && (!f.turn || String(e.turn) === f.turn.trim()) && (!f.step || String(e.step) === f.step.trim())
    && (!f.text || JSON.stringify(e.data).toLowerCase().includes(f.text.toLowerCase())));
  const focus = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.filter : undefined;
  box.appendChild(filterBar([...new Set(all.map((e) => e.type))].sort()));
  if (logOf(S.selected).error) box.appendChild(el('div', 'note bad log-error', logOf(S.selected).error));
  box.appendChild(el('div', 'note', events.length + ' of ' + all.length + ' events' + (S.travel !== null ? ' (up to seq ' + S.travel + ')' : '')));
  const table = el('table', 'log');
  const head = el('tr'); for (const h of ['seq', 'time', 'turn', 'step', 'type', 'data']) head.appendChild(el('th', '', h));
  table.appendChild(add(el('thead'), head));
  const body = el('tbody');
  for (const e of events) {
    const row = el('tr'); row.dataset.seq = e.seq;
    const outcome = e.data.outcome || e.data.reason;
    const summary = add(el('summary', '', json(e.data).slice(0, 140).replace(/\s+/g, ' ')));
    const details = add(el('details'), summary, e.type === 'tool.result' ? resultText(e.data.content) : el('pre', '', json(e.data)));
    const typeCell = add(el('td', 'type', e.type + ' '), outcome && WHY[outcome] ? badge(outcome) : null);
    add(row, el('td', '', e.seq), el('td', 'time', clockTime(e.ts)), el('td', '', e.turn ?? ''), el('td', '', e.step ?? ''), typeCell, add(el('td'), details));
    body.appendChild(row);
  }
  box.appendChild(add(table, body));
  if (focus) { const again = box.querySelector('[data-filter="' + focus + '"]'); if (again) { again.focus(); if (again.setSelectionRange) again.setSelectionRange(again.value.length, again.value.length); } }
}

export function renderInspection(box) {
  if (S.source === 'recorded') {
    box.appendChild(el('div', 'empty', 'No live events for a recording: inspection events exist only while a live system runs. ' +
      'Move the timeline to step through this session; the Charts tab shows every machine at that seq.'));
    return;
  }
  const table = el('table', 'log insp');
  const head = el('tr'); for (const h of ['time', 'actor', 'what']) head.appendChild(el('th', '', h));
  table.appendChild(add(el('thead'), head));
  for (const m of S.inspection.filter((m) => m.kind === 'note' || m.agentId === S.selected || m.agentId === '').slice(-400)) {
    const where = m.path ? (m.path.length ? m.path.join('/') : 'agent') : '';
    const what = m.kind === 'actor' ? 'started (' + m.src + ')' : m.kind === 'state' ? '→ ' + (JSON.stringify(m.value) || '·') + (m.status !== 'active' ? ' [' + m.status + ']' : '') + '  on ' + m.event
      : m.kind === 'event' ? '← ' + m.type : m.kind === 'action' ? '! ' + m.type : m.kind === 'progress' ? 'progress ' + m.callId + ' ' + JSON.stringify(m.progress) : m.kind === 'error' ? 'error: ' + m.message : (m.text || m.kind);
    table.appendChild(add(el('tr', m.kind), el('td', 'time', m.at), el('td', '', where), el('td', '', what)));
  }
  box.appendChild(table);
  if (!S.inspection.length) box.appendChild(el('div', 'empty', 'No inspection events yet: they start when this page connects.'));
}
`;

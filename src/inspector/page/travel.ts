/**
 * travel.js of the inspector page: what time travel says beside the charts — the banner with the reason
 * the re-run gives no states for some seqs (the answer's `note`), and, at a seq without states, where the
 * log stands there (the server's `LogPosition`: turn, step, calls, approvals waited for).
 */
export const travelScript = `
import { S, add, el } from './core.js';

/** The answer for the seq travelled to, once the server gave it. */
export function currentAnswer() {
  return S.travel !== null && S.answer && S.answer.seq === S.travel ? S.answer : undefined;
}

/** The banner over every tab when time travel cannot show some seqs, saying why and how far it got. */
export function travelBanner() {
  const answer = currentAnswer();
  if (!answer || !answer.note) return null;
  const reach = typeof answer.computedUpTo === 'number' && answer.computedUpTo >= 0
    ? 'States are shown up to seq ' + answer.computedUpTo + '; after it, the position the log records.'
    : 'Each seq shows the position the log records instead of the states.';
  const banner = add(el('div', 'travel-banner'), el('b', '', 'Time travel cannot show every state. '),
    el('span', 'why-not', 'Why: ' + answer.note + '. '), el('span', '', reach));
  banner.setAttribute('role', 'alert');
  return banner;
}

const words = (state) => String(state).replace(/_/g, ' ');

/** At a seq without computed states: the position derived from the log, or that there is none. */
export function renderPosition(box, answer) {
  const p = answer.position;
  const view = el('div', 'log-position');
  view.dataset.seq = answer.seq;
  add(view, el('h3', '', 'Where the log stands after seq ' + answer.seq + ' (derived from the log, not re-run)'));
  if (!p || !p.event) { view.appendChild(el('div', 'note', 'The log position is not known: the server gave none.')); box.appendChild(view); return; }
  // Classes of their own (pos-turn, not turn): the turns list in the sidebar styles .turn and .call.
  const line = (cls, text) => { const d = el('div', 'pos pos-' + cls, text); view.appendChild(d); return d; };
  line('event', 'event: ' + p.event.type + (p.event.turn !== undefined ? ' · turn ' + p.event.turn + (p.event.step !== undefined ? ' step ' + p.event.step : '') : ''));
  line('turn', p.turn ? 'turn ' + p.turn.turn + ': ' + words(p.turn.state) + (p.turn.reason ? ' (' + p.turn.reason + ')' : '') : 'no turn has started');
  if (p.step) line('step', 'step ' + p.step.step + ': ' + words(p.step.state) + (p.step.attempts ? ' · ' + p.step.attempts + ' failed attempt(s)' : ''));
  for (const c of p.calls || []) {
    const call = line('call', '');
    call.dataset.call = c.callId;
    add(call, el('b', '', c.name), document.createTextNode(' ' + c.callId + ' '), el('span', 'pill ' + (c.outcome || c.state), c.outcome || words(c.state)),
      c.decision ? el('span', 'note', ' ' + c.decision) : null);
  }
  if ((p.awaitingApproval || []).length) line('approvals', 'waiting for approval: ' + p.awaitingApproval.join(', '));
  if (p.ended) line('ended', 'the session has ended');
  box.appendChild(view);
}
`;

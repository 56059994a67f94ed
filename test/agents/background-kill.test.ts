// Background agents across a real crash: a child process runs a parent with two background children on the
// file store until its files hold the state to crash in, prints READY, and is SIGKILLed; this process then
// resumes the parent from those files. `mid-step`: child A had finished (its result sent, never read),
// child B was held in a tool after sending the parent a message (sent, never read), the parent was held in
// a tool. `waiting`: the parent's turn rested in `waitingForAgents`, B held in a tool with the parent's
// message to it unread. The logs then show every piece of mail delivered once, B going on from its log
// (no call run twice, its turn continued to its end), and the parent answering once it heard from both.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLog } from '../../src/session/log-text.ts';
import { backgroundSpawns } from '../../src/session/mail-log.ts';
import { validateSequence } from '../../src/session/schema.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { childrenByPrompt, type KillScenario, killSystem } from '../support/background-kill-kit.ts';
import { startScriptUntil } from '../support/child-run.ts';
import { assertCallsPaired, logged } from '../support/crash-kit.ts';
import { expectMailPaired } from '../support/mail-kit.ts';

const temporary: string[] = [];
afterAll(() => Promise.all(temporary.map((path) => rm(path, { recursive: true, force: true }))));

/** Every session file in `dir`, parsed as a reader of the log parses it, and checked for seq and calls. */
async function sessionFiles(dir: string): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const name of (await readdir(dir)).filter((file) => file.endsWith('.jsonl')).sort()) {
    const events = await readLog(join(dir, name));
    validateSequence(events);
    logs.set(name.replace(/\.jsonl$/, ''), events);
  }
  return logs;
}

/** Runs `scenario` in a child process until it prints READY, reads its files there, then SIGKILLs it. */
async function crash(scenario: KillScenario): Promise<{ dir: string; onDisk: Map<string, LogEvent[]> }> {
  const dir = await mkdtemp(join(tmpdir(), `agentchart-background-kill-${scenario}-`));
  temporary.push(dir);
  const child = await startScriptUntil('test/fixtures/background-kill-child.ts', 'READY', {
    args: [dir, scenario],
    timeoutMs: 60_000,
  });
  // Read while the agents are held: what a crash right now leaves.
  const onDisk = await sessionFiles(dir);
  child.kill('SIGKILL');
  const run = await child.done;
  expect(run.signal).toBe('SIGKILL');
  return { dir, onDisk };
}

/**
 * Resumes the parent from `dir` in this process (with no gates: a held call that ran again would fail) and
 * lets the tree work until the parent has answered `All reported.` and every child has ended; the files.
 */
async function resumeToTheEnd(dir: string): Promise<Map<string, LogEvent[]>> {
  const system = killSystem({ dir, idPrefix: 'r' });
  const parent = await system.resumeAgent('parent');
  const answer = await logged(
    parent,
    (event) => isEvent(event, 'assistant.message') && event.data.text === 'All reported.',
  );
  const result = await parent.whenTurnEnds(answer.turn!);
  expect(result).toMatchObject({ reason: 'completed', text: 'All reported.' });
  await Promise.all(parent.children().map((child) => child.result));
  await system.dispose();
  return sessionFiles(dir);
}

/** `[type, detail]` of each event, the detail being what tells events of one type apart here. */
function outline(events: readonly LogEvent[]): [string, unknown][] {
  return events.map((event) => {
    const data = event.data;
    const detail = data.callId ?? data.kind ?? data.reason ?? data.text ?? null;
    return [event.type, event.type === 'tool.result' ? [detail, data.outcome] : detail];
  });
}

/** The sessions of the tree: the parent and its children by prompt. */
function tree(logs: ReadonlyMap<string, LogEvent[]>, prompts: [string, string]) {
  const parent = logs.get('parent')!;
  const children = childrenByPrompt(parent);
  const [first, second] = prompts.map((prompt) => logs.get(children.get(prompt)!)!) as [
    LogEvent[],
    LogEvent[],
  ];
  return { parent, first, second };
}

/** What the crash left is still there, byte for byte: a resume only appends. */
function expectAppendedOnly(onDisk: ReadonlyMap<string, LogEvent[]>, after: ReadonlyMap<string, LogEvent[]>) {
  expect([...after.keys()]).toEqual([...onDisk.keys()]);
  for (const [id, events] of onDisk) expect(after.get(id)!.slice(0, events.length), id).toEqual(events);
}

/** Every call has one `tool.call`, one `tool.started` at most (nothing ran twice) and one result. */
function expectEachCallRanOnce(logs: ReadonlyMap<string, LogEvent[]>) {
  for (const [id, events] of logs) {
    assertCallsPaired(events, id);
    const started = events.flatMap((event) => (isEvent(event, 'tool.started') ? [event.data.callId] : []));
    expect(new Set(started).size, `${id}: a call started twice`).toBe(started.length);
  }
}

/** Message ids are unique in the tree; inbox ids, seqs and call ids unique within each log. */
function expectNoDuplicateIds(logs: ReadonlyMap<string, LogEvent[]>) {
  const sent = [...logs.values()].flatMap((events) => sentBy(events).map((data) => data.id));
  expect(new Set(sent).size, 'message ids').toBe(sent.length);
  for (const [id, events] of logs) {
    const inbox = events.flatMap((event) => (isEvent(event, 'inbox.queued') ? [event.data.id] : []));
    expect(new Set(inbox).size, `${id}: inbox ids`).toBe(inbox.length);
    const calls = events.flatMap((event) => (isEvent(event, 'tool.call') ? [event.data.callId] : []));
    expect(new Set(calls).size, `${id}: call ids`).toBe(calls.length);
  }
}

/**
 * After the crash (`from`), the parent ran one more turn: it read each of `mail` once, and it ended
 * `completed` with `All reported.` only after the last of them was read.
 */
function expectOneTurnHeardBoth(parent: readonly LogEvent[], from: number, mail: string[]) {
  const resumed = parent.slice(from);
  const turns = resumed.filter((event) => event.type === 'turn.end').map((event) => event.data.reason);
  expect(turns).toEqual(['interrupted', 'completed']);
  const end = parent.findLastIndex((event) => event.type === 'turn.end');
  const lastClaim = Math.max(...mail.map((id) => parent.indexOf(claims(parent, id)[0]!)));
  expect(lastClaim).toBeLessThan(end);
  expect(parent.findLast((event) => isEvent(event, 'assistant.message'))?.data.text).toBe('All reported.');
}

/** The ids of every `inbox.queued` of `events` with the sender's message id `id`. */
const queued = (events: readonly LogEvent[], id: string) =>
  events.filter((event) => isEvent(event, 'inbox.queued') && event.data.id === id);
const claims = (events: readonly LogEvent[], id: string) =>
  events.filter((event) => isEvent(event, 'inbox.claimed') && event.data.ids.includes(id));
const sentBy = (events: readonly LogEvent[]) =>
  events.flatMap((event) => (isEvent(event, 'message.sent') ? [event.data] : []));
const afterResume = (events: readonly LogEvent[]) =>
  outline(events.slice(events.findIndex((event) => event.type === 'session.resumed')));

describe('SIGKILL a parent with two background children, then resume it', () => {
  it("mid-step: the finished child's result and the message are delivered once, B goes on from its log", async () => {
    const { dir, onDisk } = await crash('mid-step');
    const before = tree(onDisk, ['worker A', 'worker B']);
    // The crash point: the parent held in its gate, its log without the mail sent to it since; A ended,
    // its result sent; B held in its gate after its message to the parent was sent.
    expect(outline(before.parent).at(-1)).toEqual(['tool.started', 'p1-0']);
    expect(before.parent.some((event) => event.type === 'inbox.queued' && event.data.from)).toBe(false);
    expect(outline(before.first).slice(-3)).toEqual([
      ['turn.end', 'completed'],
      ['message.sent', 'result'],
      ['session.end', 'disposed'],
    ]);
    expect(outline(before.second).at(-1)).toEqual(['tool.started', 'b2-0']);
    const [aResult] = sentBy(before.first);
    const [bMessage] = sentBy(before.second);

    const after = await resumeToTheEnd(dir);
    expectAppendedOnly(onDisk, after);
    expectEachCallRanOnce(after);
    expectNoDuplicateIds(after);
    const { parent, first, second } = tree(after, ['worker A', 'worker B']);
    const children = childrenByPrompt(parent);
    // A had ended: nothing is written to its log again; its result is delivered once, and read once.
    expect(first).toEqual(before.first);
    const bResult = sentBy(second).at(-1)!;
    expect(sentBy(second)).toEqual([bMessage, bResult]);
    const mail = expectMailPaired(after);
    expect(mail.map((line) => [line.id, line.kind])).toEqual(
      [
        [aResult!.id, 'result'],
        [bMessage!.id, 'message'],
        [bResult.id, 'result'],
      ].sort(([a], [b]) => a!.localeCompare(b!)),
    );
    for (const { id } of [aResult!, bMessage!, bResult]) {
      expect(queued(parent, id), `inbox.queued ${id}`).toHaveLength(1);
      expect(claims(parent, id), `inbox.claimed ${id}`).toHaveLength(1);
    }
    // B goes on from its log: the call the crash cut short is closed `unknown`, its turn continued.
    expect(afterResume(second)).toEqual([
      ['session.resumed', null],
      ['tool.result', ['b2-0', 'unknown']],
      ['step.end', null],
      ['turn.end', 'interrupted'],
      ['inbox.queued', null],
      ['turn.start', null],
      ['inbox.claimed', null],
      ['user.message', null],
      ['step.start', null],
      ['assistant.message', 'B result'],
      ['step.end', null],
      ['turn.end', 'completed'],
      ['message.sent', 'result'],
      ['session.end', 'disposed'],
    ]);
    // The parent's cut turn is closed. Then the mail the crash left in flight is delivered, child by child
    // in the order the parent's log started them (two spawns run side by side, so either may be first),
    // and only then does B (waiting for that) go on and send its result.
    expect(afterResume(parent).slice(0, 4)).toEqual([
      ['session.resumed', null],
      ['tool.result', ['p1-0', 'unknown']],
      ['step.end', null],
      ['turn.end', 'interrupted'],
    ]);
    const inFlight =
      children.get('worker A') === backgroundSpawns(parent)[0]!.childId
        ? [aResult!, bMessage!]
        : [bMessage!, aResult!];
    const queuedAfter = parent
      .slice(before.parent.length)
      .flatMap((event) => (isEvent(event, 'inbox.queued') ? [event.data.id] : []));
    expect(queuedAfter).toEqual([...inFlight.map((mail) => mail.id), bResult.id]);
    expect(parent[before.parent.length + 4]).toBe(queued(parent, inFlight[0]!.id)[0]);
    // The first of them starts the next turn, which takes the other and waits for B (a resume brought it
    // back for this turn), and ends once B has reported.
    expectOneTurnHeardBoth(parent, before.parent.length, [aResult!.id, bMessage!.id, bResult.id]);
  }, 120_000);

  it("waiting: the parent's turn goes on waiting for B and answers when B reports", async () => {
    const { dir, onDisk } = await crash('waiting');
    const before = tree(onDisk, ['worker C', 'worker D']);
    // The crash point: the parent's turn rests in waitingForAgents (its last answer asked for nothing, and
    // was flushed on the way in), C's result read; D held in its gate, the parent's message to it unread.
    expect(outline(before.parent).slice(-3)).toEqual([
      ['step.start', null],
      ['assistant.message', 'Waiting for the others.'],
      ['step.end', null],
    ]);
    expect(before.parent.some((event) => event.type === 'turn.end')).toBe(false);
    const [cResult] = sentBy(before.first);
    const [toD] = sentBy(before.parent);
    expect(claims(before.parent, cResult!.id)).toHaveLength(1);
    expect(outline(before.second).at(-1)).toEqual(['tool.started', 'd1-0']);
    expect(queued(before.second, toD!.id)).toEqual([]);

    const after = await resumeToTheEnd(dir);
    expectAppendedOnly(onDisk, after);
    expectEachCallRanOnce(after);
    expectNoDuplicateIds(after);
    const { parent, first, second } = tree(after, ['worker C', 'worker D']);
    expect(first).toEqual(before.first);
    const [dResult] = sentBy(second);
    expect(expectMailPaired(after).map((line) => line.id)).toEqual(
      [cResult!.id, toD!.id, dResult!.id].sort((a, b) => a.localeCompare(b)),
    );
    // The turn is not repaired: it goes on waiting, hears D, and the model answers in the same turn.
    expect(afterResume(parent)).toEqual([
      ['session.resumed', null],
      ['inbox.queued', 'result'],
      ['inbox.claimed', null],
      ['user.message', null],
      ['step.start', null],
      ['assistant.message', 'All reported.'],
      ['step.end', null],
      ['turn.end', 'completed'],
      ['session.end', 'disposed'],
    ]);
    expect(queued(parent, dResult!.id)).toHaveLength(1);
    expect(parent.filter((event) => event.type === 'turn.start')).toHaveLength(1);
    // D goes on from its log: its cut call closed, the parent's message delivered once and answered in
    // the turn it starts, and its result sent from that turn (no second turn on `continueMessage`).
    expect(afterResume(second)).toEqual([
      ['session.resumed', null],
      ['tool.result', ['d1-0', 'unknown']],
      ['step.end', null],
      ['turn.end', 'interrupted'],
      ['inbox.queued', 'message'],
      ['turn.start', null],
      ['inbox.claimed', null],
      ['user.message', null],
      ['step.start', null],
      ['assistant.message', 'D result'],
      ['step.end', null],
      ['turn.end', 'completed'],
      ['message.sent', 'result'],
      ['session.end', 'disposed'],
    ]);
    expect(queued(second, toD!.id)).toHaveLength(1);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../src/providers/types.ts';
import { planCompaction } from '../../src/session/compaction-plan.ts';
import {
  compactionRequest,
  isCompactionRequest,
  summaryInstruction,
} from '../../src/session/compaction-request.ts';
import { project } from '../../src/session/projection.ts';
import type { LogEvent, LogEventData, LogEventType } from '../../src/session/types.ts';

/** Builds logs the way the runtime writes them: turns of steps, each step with its calls and results. */
class Log {
  readonly events: LogEvent[] = [];
  private turn = 0;
  private calls = 0;

  constructor() {
    this.add('session.start', { agentId: 'p', config: {} });
  }

  add<K extends LogEventType>(
    type: K,
    data: LogEventData[K],
    at: { turn?: number; step?: number } = {},
  ): number {
    this.events.push({ v: 1, seq: this.events.length, ts: 0, type, ...at, data });
    return this.events.length - 1;
  }

  /** Starts a turn answering `prompt`; returns the seq of its `turn.start`. */
  startTurn(prompt?: string): number {
    const turn = ++this.turn;
    const start = this.add('turn.start', {}, { turn });
    if (prompt !== undefined) this.add('user.message', { channel: 'followup', content: prompt }, { turn });
    return start;
  }

  /** One step with `calls` tool calls (each answered), or a final answer. Returns the seq of its `step.start`. */
  step(step: number, calls = 0, steer?: string): number {
    const at = { turn: this.turn, step };
    if (steer !== undefined) this.add('user.message', { channel: 'steer', content: steer }, at);
    const start = this.add('step.start', { model: 'm', toolNames: ['t'], systemHash: 'h' }, at);
    const toolCalls = Array.from({ length: calls }, () => ({ id: `c${++this.calls}`, name: 't', input: {} }));
    const stopReason = calls > 0 ? 'tool_use' : 'end_turn';
    this.add('assistant.message', { text: `answer ${step}`, toolCalls, usage: emptyUsage, stopReason }, at);
    for (const call of toolCalls) this.add('tool.call', { callId: call.id, name: 't', input: {} }, at);
    for (const call of toolCalls)
      this.add('tool.result', { callId: call.id, outcome: 'ok', content: 'r' }, at);
    this.add('step.end', { toolResults: calls }, at);
    return start;
  }

  endTurn(): void {
    this.add('turn.end', { reason: 'completed', usage: emptyUsage }, { turn: this.turn });
  }

  /** A whole turn: a prompt, then steps with the given numbers of calls. */
  wholeTurn(prompt: string, ...calls: number[]): number {
    const start = this.startTurn(prompt);
    calls.forEach((count, index) => {
      this.step(index + 1, count);
    });
    this.endTurn();
    return start;
  }

  compact(replaces: [number, number], summary = 'S'): number {
    return this.add(
      'compaction',
      { replaces, summary, tokensBefore: 100, trigger: 'auto' },
      { turn: this.turn },
    );
  }
}

const options = { system: 's', tools: [] };

describe('planCompaction', () => {
  it('finds nothing in a new session, or while the only turn has no step behind it', () => {
    const log = new Log();
    expect(planCompaction(log.events, { keepRecentTurns: 1 })).toBeUndefined();
    log.startTurn('first question');
    expect(planCompaction(log.events, { keepRecentTurns: 1 })).toBeUndefined();
  });

  it('keeps the last turns, the running one included, and summarises everything before them', () => {
    const log = new Log();
    log.wholeTurn('one', 1, 0);
    log.wholeTurn('two', 2, 0);
    const third = log.wholeTurn('three', 0);
    log.startTurn('four');
    expect(planCompaction(log.events, { keepRecentTurns: 2 })).toEqual({ replaces: [1, third - 1] });
  });

  it('inside a long running turn keeps the latest step and the input claimed for it', () => {
    const log = new Log();
    log.startTurn('a long task');
    log.step(1, 2);
    log.step(2, 1);
    const steered = log.events.length;
    log.step(3, 1, 'keep going');
    // The only turn is kept whole by the turn rule; the step rule keeps step 3 with its steering.
    expect(planCompaction(log.events, { keepRecentTurns: 2 })).toEqual({ replaces: [1, steered - 1] });
  });

  it('never reaches a user message that no answer followed', () => {
    const log = new Log();
    log.startTurn('task');
    log.step(1, 1);
    log.step(2, 1);
    // Claimed input, then a step whose request failed: nothing answered the steering yet.
    const steer = log.add('user.message', { channel: 'steer', content: 'wait' }, { turn: 1 });
    log.add('step.start', { model: 'm', toolNames: [], systemHash: 'h' }, { turn: 1, step: 3 });
    log.add('step.end', { toolResults: 0 }, { turn: 1, step: 3 });
    const plan = planCompaction(log.events, { keepRecentTurns: 1 });
    // The latest step that ended is step 3 (it holds the steering): the range stops before it.
    expect(plan?.replaces[1]).toBeLessThan(steer);
  });

  it('never parts a tool call from its result', () => {
    // Turn two's call is answered in its step, or only after turn three (a log no runtime writes, but a
    // rule is a rule): then every range that holds turn two would part the call from its result.
    const build = (late: boolean) => {
      const log = new Log();
      log.wholeTurn('one', 0);
      log.startTurn('two');
      const at = { turn: 2, step: 1 };
      log.add('step.start', { model: 'm', toolNames: [], systemHash: 'h' }, at);
      const toolCalls = [{ id: 'open', name: 't', input: {} }];
      log.add('assistant.message', { text: '', toolCalls, usage: emptyUsage, stopReason: 'tool_use' }, at);
      const result = () => log.add('tool.result', { callId: 'open', outcome: 'ok', content: 'r' }, at);
      if (!late) result();
      log.add('step.end', { toolResults: 0 }, at);
      log.endTurn();
      const third = log.wholeTurn('three', 0);
      if (late) result();
      log.startTurn('four');
      return { events: log.events, third };
    };
    const inTime = build(false);
    expect(planCompaction(inTime.events, { keepRecentTurns: 2 })).toEqual({
      replaces: [1, inTime.third - 1],
    });
    expect(planCompaction(build(true).events, { keepRecentTurns: 2 })).toBeUndefined();
  });

  it('builds on an earlier compaction: the new range holds it, and project() shows only the new summary', () => {
    const log = new Log();
    log.wholeTurn('one', 1);
    const second = log.wholeTurn('two', 1);
    log.startTurn('three');
    const first = planCompaction(log.events, { keepRecentTurns: 2 })!;
    expect(first).toEqual({ replaces: [1, second - 1] });
    log.compact(first.replaces, 'S1');
    expect(planCompaction(log.events, { keepRecentTurns: 2 })).toBeUndefined();
    log.step(1, 1);
    log.endTurn();
    const fourth = log.startTurn('four');
    const next = planCompaction(log.events, { keepRecentTurns: 2 })!;
    expect(next.replaces[0]).toBe(1);
    expect(next.replaces[1]).toBeGreaterThan(first.replaces[1]);
    expect(next.replaces[1]).toBeLessThan(fourth);
    log.compact(next.replaces, 'S2');
    const messages = project(log.events, options).messages;
    expect(
      messages.filter((message) => message.role === 'user' && message.content.includes('Summary')),
    ).toEqual([{ role: 'user', content: '[Summary of earlier conversation]\nS2' }]);
    expect(messages[0]).toEqual({ role: 'user', content: '[Summary of earlier conversation]\nS2' });
  });

  it('does not count a turn that only compacts as a turn to keep', () => {
    const log = new Log();
    log.wholeTurn('one', 0);
    const two = log.wholeTurn('two', 0);
    log.startTurn();
    // Were the turn without messages counted, turn two would be summarised too.
    expect(planCompaction(log.events, { keepRecentTurns: 1 })).toEqual({ replaces: [1, two - 1] });
  });
});

describe('compactionRequest', () => {
  const tools = [{ name: 't', description: 'A tool.', inputSchema: { type: 'object' } }];

  it("is the conversation's own prefix up to the planned range's end, earlier summaries included, then the ask", () => {
    const log = new Log();
    log.wholeTurn('one', 1);
    const two = log.wholeTurn('two', 0);
    log.compact([1, two - 1], 'Turn one happened.');
    log.wholeTurn('three', 0);
    log.startTurn('four');
    const plan = planCompaction(log.events, { keepRecentTurns: 2 })!;
    const request = compactionRequest(log.events, plan, { instructions: 'Be brief.', system: 'S', tools });
    expect(isCompactionRequest(request)).toBe(true);
    expect(request.system).toBe('S');
    expect(request.tools).toBe(tools);
    // What every step of the conversation sent first: the request differs only after it.
    const conversation = project(log.events, { system: 'S', tools }).messages;
    const prefix = request.messages.slice(0, -1);
    expect(prefix).toEqual(conversation.slice(0, prefix.length));
    expect(prefix.map((message) => (message.role === 'user' ? message.content : message.role))).toEqual([
      '[Summary of earlier conversation]\nTurn one happened.',
      'two',
      'assistant',
    ]);
    const ask = request.messages.at(-1) as { role: string; content: string };
    expect(ask.role).toBe('user');
    expect(ask.content.startsWith(summaryInstruction)).toBe(true);
    expect(ask.content.endsWith('Also follow these instructions: Be brief.')).toBe(true);
  });

  it('a step request is not a compaction request, whatever its system prompt says', () => {
    const log = new Log();
    log.wholeTurn('one', 0);
    log.startTurn('two');
    const step = project(log.events, { system: summaryInstruction, tools });
    expect(isCompactionRequest(step)).toBe(false);
    expect(isCompactionRequest({ messages: [] })).toBe(false);
  });
});

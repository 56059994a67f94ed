// A session with background children and mail between them, replayed byte for byte: the parent starts
// two children and goes on working, a child waits for and answers its parent's message, both results reach
// the parent mid-step. The replay re-runs every session from its own log (its recorded answers, times and
// ids) and delivers each piece of mail where its recipient's recording had it, once the replayed sender
// sent it again; every log of the tree then equals its recording. A tampered child answer diverges there.
// A typed child (an agent type with output) replays too, each check answered with its recorded verdict.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { checkReplay, expectReplay } from '../../src/replay/expect-replay.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { routedModel, stepIndex } from '../support/crash-kit.ts';
import {
  call,
  recordingSystem,
  recordTree as recordWith,
  startedIds,
  storedLogs,
} from '../support/mail-kit.ts';

/** Records the tree once: the parent's log and every child's, by session id. */
async function recordTree(
  delays: { b?: number } = {},
): Promise<{ root: LogEvent[]; children: Map<string, LogEvent[]> }> {
  const model = routedModel({
    supervise: (request: ModelRequest) => {
      const step = stepIndex(request);
      if (step === 0)
        return {
          toolCalls: [
            { id: 's1', ...call('spawn_agent', { prompt: 'worker A', description: 'A' }) },
            { id: 's2', ...call('spawn_agent', { prompt: 'worker B', description: 'B' }) },
          ],
        };
      if (step === 1)
        return {
          toolCalls: [
            {
              id: 'm1',
              ...call('send_message', { to: startedIds(request)[0], text: 'Use the short form.' }),
            },
          ],
        };
      return { text: 'All reported.' };
    },
    'worker A': [
      { toolCalls: [{ id: 'w1', ...call('wait_agents', { ids: ['parent'] }) }] },
      { toolCalls: [{ id: 'n1', ...call('send_message', { to: 'parent', text: 'A: short form it is.' }) }] },
      { text: 'A result' },
    ],
    'worker B': [{ text: 'B result', delayMs: delays.b ?? 0 }],
  });
  return recordWith(model, backgroundAgentTools());
}

describe('replay of a session with background agents', () => {
  // The recording's timing places the mail: as it came (B's result in the middle of the parent's send), or
  // with B slow to answer (its result last, after A's message and result). The replay
  // answers at once and must still put each piece where its recording did.
  it.each([
    ['as it came', {}],
    ['after a slow child', { b: 40 }],
  ])(
    're-runs the tree byte for byte, with recorded tools and with live ones (mail %s)',
    async (_, delays) => {
      const { root, children } = await recordTree(delays);
      expect([...children.keys()]).toHaveLength(2);
      // The mail the replay must place: two results and a message up, a message down, mid-step.
      const mail = [root, ...children.values()].flatMap((events) =>
        events.filter((event) => event.type === 'inbox.queued' && event.data.from !== undefined),
      );
      expect(mail).toHaveLength(4);
      await expectReplay(root, { subagentLogs: children });
      await expectReplay(root, {
        subagentLogs: children,
        tools: 'live',
      });
    },
  );

  it('a typed child (an agent type with output) replays its checks and its JSON result byte for byte', async () => {
    const tools = backgroundAgentTools({
      agentTypes: { counter: { description: 'Counts.', output: z.object({ count: z.number() }) } },
    });
    const model = routedModel({
      supervise: (request: ModelRequest) =>
        stepIndex(request) === 0
          ? { toolCalls: [{ id: 's1', ...call('spawn_agent', { agent_type: 'counter', prompt: 'count' }) }] }
          : { text: 'Done.' },
      count: [{ text: 'three' }, { text: '{"count":3}' }],
    });
    const system = recordingSystem(model, tools);
    const parent = await system.createAgent({ id: 'parent' });
    await parent.run('supervise');
    await system.dispose();
    const children = await storedLogs(system.store);
    const root = children.get('parent')!;
    children.delete('parent');
    const [child] = children.values();
    expect(
      child!.filter((event) => event.type === 'output.checked').map((event) => event.data.valid),
    ).toEqual([false, true]);
    // The host's tools give the agent type again; each check answers with its recorded verdict.
    await expectReplay(root, { subagentLogs: children, tools });
  });

  it('a child that answers differently diverges at its own seq, named by its session', async () => {
    const { root, children } = await recordTree();
    const [childId, events] = [...children].find(([, log]) =>
      log.some((event) => event.type === 'assistant.message' && event.data.text === 'B result'),
    )!;
    const at = events.findIndex((event) => event.type === 'assistant.message');
    const tampered = events.map((event, index) =>
      index === at ? { ...event, data: { ...event.data, text: 'B changed' } } : event,
    );
    const check = await checkReplay(root, { subagentLogs: new Map([...children, [childId, tampered]]) });
    expect(check.divergence).toBeInstanceOf(ReplayDivergenceError);
    expect(check.divergence?.sessionId).toBe(childId);
    // Its own answer is recorded as tampered, so its result message is where the two first differ.
    expect(check.divergence?.seq).toBe(events.findIndex((event) => event.type === 'message.sent'));
  });
});

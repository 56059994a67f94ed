// A session with background children, messages and a restart, replayed byte for byte: the parent starts a
// supervised worker and a plain one; the worker's model fails once (`model_error`), its supervision logs the
// restart in the parent (`agent.restarted`) and waits its backoff, the worker goes on from its log
// (`session.restarted`), writes to its parent and reports. The replay re-runs every session from its own
// log (the recorded model gives the failure again, the backoff waits on the replay's clock) and every log of
// the tree equals its recording.
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/types.ts';
import { checkReplay, expectReplay } from '../../src/replay/expect-replay.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { routedModel, stepIndex } from '../support/crash-kit.ts';
import { call, recordTree } from '../support/mail-kit.ts';

describe('replay of a session with a supervised background child', () => {
  it('re-runs the tree byte for byte: children, messages and a restart', async () => {
    const tools = backgroundAgentTools({
      agentTypes: {
        worker: {
          description: 'Works.',
          supervision: { restart: 'on-failure', maxRestarts: 2, backoffMs: 5 },
        },
      },
    });
    let workerAsked = 0;
    const model = routedModel({
      supervise: (request: ModelRequest) =>
        stepIndex(request) === 0
          ? {
              toolCalls: [
                {
                  id: 's1',
                  ...call('spawn_agent', { agent_type: 'worker', prompt: 'work', description: 'W' }),
                },
                { id: 's2', ...call('spawn_agent', { prompt: 'plain', description: 'P' }) },
              ],
            }
          : { text: 'All reported.' },
      work: () => {
        workerAsked++;
        if (workerAsked === 1) return { error: { kind: 'bad_request', message: 'refused once' } };
        if (workerAsked === 2)
          return {
            toolCalls: [{ id: 'n1', ...call('send_message', { to: 'parent', text: 'Back on it.' }) }],
          };
        return { text: 'Worker result' };
      },
      plain: [{ text: 'Plain result' }],
    });
    const { root, children: logs } = await recordTree(model, tools);
    expect(root.filter((event) => event.type === 'agent.restarted')).toHaveLength(1);
    const restarted = [...logs.values()].filter((events) =>
      events.some((event) => event.type === 'session.restarted'),
    );
    expect(restarted).toHaveLength(1);
    // Mail the replay must place: a message and two results up.
    expect(
      root.filter((event) => event.type === 'inbox.queued' && event.data.from !== undefined),
    ).toHaveLength(3);
    await expectReplay(root, { subagentLogs: logs, tools });
    // The policy is the host's (its agent type's): replayed with the same type but no policy, the link the
    // recording wrote with it is where the replay first differs.
    const unsupervised = backgroundAgentTools({ agentTypes: { worker: { description: 'Works.' } } });
    const without = await checkReplay(root, { subagentLogs: logs, tools: unsupervised });
    expect(without.divergence?.sessionId).toBeUndefined();
    expect(without.divergence?.seq).toBe(root.findIndex((event) => event.type === 'agent.spawned'));
  });
});

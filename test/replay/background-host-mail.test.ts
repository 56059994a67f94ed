// A host's `child.send()` replayed. The parent's log records it as `message.sent{ by: 'host' }` and the
// child's as `inbox.queued` from the parent, written in one step; the replay gives the message again when
// the replayed parent's log is where the recording's was, once the child's log is where its recording's
// was too (the parent's model answers nothing until then). The host sends while the parent's model is
// asked, or while the parent's turn waits for the child; both trees then replay byte for byte, with
// recorded tools and with live ones.
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/types.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { isEvent } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { counterIds, logged, routedModel, stepIndex, tickingClock } from '../support/crash-kit.ts';
import { call, expectMailPaired, storedLogs } from '../support/mail-kit.ts';

/**
 * Records a parent with one background child that waits for mail; the host sends it a message once the
 * child waits and (`whileWaiting`) the parent's turn rests in `waitingForAgents`.
 */
async function recordHostMail(whileWaiting: boolean) {
  const model = routedModel({
    supervise: (request: ModelRequest) =>
      stepIndex(request) === 0
        ? { toolCalls: [{ id: 's1', ...call('spawn_agent', { prompt: 'worker A' }) }] }
        : { text: stepIndex(request) === 1 ? 'Waiting.' : 'All reported.' },
    'worker A': [
      { toolCalls: [{ id: 'w1', ...call('wait_agents', { ids: ['parent'] }) }] },
      { text: 'A result' },
    ],
  });
  const system = createAgentSystem({
    model,
    tools: backgroundAgentTools(),
    ids: counterIds(),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
  const parent = await system.createAgent({ id: 'parent' });
  const run = parent.run('supervise');
  const spawned = await logged(parent, (event) => event.type === 'agent.spawned');
  const child = system.list().find((agent) => agent.id === spawned.data.childSessionId)!;
  await logged(child, (event) => event.type === 'tool.started');
  if (whileWaiting)
    await logged(parent, (event) => isEvent(event, 'assistant.message') && event.data.text === 'Waiting.');
  parent.children()[0]!.send('From the host.');
  expect(await run).toMatchObject({ reason: 'completed', text: 'All reported.' });
  await system.dispose();
  const logs = await storedLogs(system.store);
  expectMailPaired(logs);
  const root = logs.get('parent')!;
  logs.delete('parent');
  return { root, children: logs };
}

describe('replay of a host message to a background child', () => {
  it.each([
    ['while the parent asks its model', false],
    ['while the parent waits for the child', true],
  ])('gives child.send() again where the recording had it (%s)', async (_, whileWaiting) => {
    const { root, children } = await recordHostMail(whileWaiting);
    const sent = root.flatMap((event) => (isEvent(event, 'message.sent') ? [event.data.by] : []));
    expect(sent).toEqual(['host']);
    await expectReplay(root, { subagentLogs: children });
    await expectReplay(root, { subagentLogs: children, tools: 'live' });
  });
});

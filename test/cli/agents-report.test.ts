// What `/agents` prints, on real runs with a scripted model: a child that still runs (never waited for),
// one that finished, the messages between a child and its parent in `/agents <id>`, a typed child's value.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentsReport } from '../../src/cli/chat/agents-report.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { routedModel } from '../support/crash-kit.ts';
import { call, useSystems } from '../support/mail-kit.ts';
import { hostileText, startSupervisor, supervisorOptions } from '../support/supervisor-run.ts';

const systemFor = useSystems();

describe('/agents', () => {
  it('lists a running child without waiting for it, and shows one in full with its messages', async () => {
    const system = systemFor(supervisorOptions());
    const parent = await system.createAgent({ id: 'parent' });
    const { childA, childB, goOn } = await startSupervisor(parent);
    const midRun = await agentsReport(parent);
    expect(midRun[0]).toBe('2 background agents:');
    expect(midRun).toContain(`  ${childA}  running  Waits for word`);
    expect(midRun).toContain(`  ${childB}  finished (completed)  [reader] worker B`);
    expect(midRun).toContain('    B result');
    expect(midRun).toHaveLength(5); // and the hint: /agents <id> shows one in full.

    await goOn();
    expect(await agentsReport(parent, childA)).toEqual([
      `Agent ${childA}: Waits for word`,
      '  status: finished (completed)',
      '  prompt:',
      '    worker A',
      '    Wait for word from me.',
      '  messages:',
      '    to it (from the host):',
      '      Go on.',
      '    from it:',
      `      ${hostileText}`,
      '  result:',
      '    A result',
    ]);
  });

  it("shows a typed child's value as JSON, and says when there are none", async () => {
    const model = routedModel({
      delegate: [
        { toolCalls: [call('spawn_agent', { prompt: 'count', agent_type: 'counter' })] },
        { text: 'Sent.' },
      ],
      count: [{ json: { count: 3 } }],
    });
    const tools = backgroundAgentTools({
      agentTypes: { counter: { description: 'Counts.', output: z.object({ count: z.number() }) } },
    });
    const system = systemFor({ model, tools });
    const parent = await system.createAgent({ id: 'parent' });
    expect(await agentsReport(parent)).toEqual(['No background agents in this session yet.']);
    await parent.run('delegate');
    const [child] = parent.children();
    await child!.result;
    const list = await agentsReport(parent);
    expect(list.slice(1, 3)).toEqual([
      `  ${child!.id}  finished (completed)  [counter] count`,
      '    {"count":3}',
    ]);
    expect((await agentsReport(parent, child!.id)).slice(-4)).toEqual([
      '  result:',
      '    {',
      '      "count": 3',
      '    }',
    ]);
    expect(await agentsReport(parent, 'nobody')).toEqual([
      'No background agent nobody in this session. /agents lists them.',
    ]);
  });
});

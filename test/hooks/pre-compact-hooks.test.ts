// `preCompact` hooks: observers told that a compaction is about to run (its trigger and instructions);
// their decisions are logged, and the compaction runs whatever they answer.
import { describe, expect, it } from 'vitest';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { echoTool, hookedAgent, hookTrail } from './hook-kit.ts';

describe('preCompact hooks', () => {
  it('are told about a manual compaction, logged, and the compaction runs; the replay reads them back', async () => {
    const told: unknown[] = [];
    const { agent, system } = await hookedAgent([{ text: 'One.' }, { text: 'Two.' }, { text: 'Summary.' }], {
      hooks: {
        preCompact: [
          ({ trigger, instructions }) => {
            told.push({ trigger, instructions });
            return { decision: 'block', reason: 'logged, not obeyed' };
          },
          {
            type: 'command',
            command: `node -e "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); if (i.hook_event_name!=='PreCompact' || i.trigger!=='manual' || i.custom_instructions!=='Keep names.') process.exit(1)"`,
          },
        ],
      },
    });
    await agent.run('Question one');
    await agent.run('Question two');
    const result = await agent.compact({ instructions: 'Keep names.' });
    expect(result.compacted).toBe(true);
    expect(told).toEqual([{ trigger: 'manual', instructions: 'Keep names.' }]);
    const trail = hookTrail(agent.log());
    expect(trail[0]).toBe('preCompact preCompact[0] block: logged, not obeyed');
    expect(trail[1]).toMatch(/^preCompact node -e .* pass$/);
    const types = agent.log().map((event) => event.type);
    expect(types.slice(types.lastIndexOf('turn.start'))).toEqual([
      'turn.start',
      'hook.decided',
      'hook.decided',
      'compaction',
      'turn.end',
    ]);
    await system.dispose();
    const recorded = [...agent.log()];
    const replayed = await replaySession(recorded, { setup: { tools: [echoTool()] } });
    assertSameLog(recorded, replayed.events);
  });
});

// A background child made from an agent definition, brought back after a crash: its resumed parent finds
// the definition in its recorded catalogue and launches the child narrowed by it again — the definition's
// stricter mode and step limit are not in the child's log, so without it the child would come back in its
// parent's looser mode.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { SessionStore } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { definitionText, writeDefinition } from '../support/agent-definition-kit.ts';
import { counterIds, echoTool, routedModel, stepIndex, until } from '../support/crash-kit.ts';
import { crashedAt, crashPoints, RecordingStore } from '../support/crash-store.ts';
import { call, storedLogs, useSystems } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const systemFor = useSystems();

/** A parent (in bypass) that starts one planner, says it waits, and answers once the planner reported. */
const supervise = (request: ModelRequest) => {
  const step = stepIndex(request);
  if (step === 0) return { toolCalls: [call('spawn_agent', { agent_type: 'planner', prompt: 'plan' })] };
  return { text: step === 1 ? 'Waiting for the planner.' : 'Got it.' };
};

describe('a background child of a definition, restored', () => {
  const temp = useTempFolders('agentchart-definition-restore');

  it("comes back in the definition's mode and step limit, not its parent's", async () => {
    const folder = join(await temp('defs'), 'agents');
    await writeDefinition(
      folder,
      'planner.md',
      definitionText(
        { name: 'planner', description: 'Plans.', permissionMode: 'plan', maxSteps: '4' },
        'You plan.\n',
      ),
    );
    const model = () => routedModel({ supervise, plan: [{ text: 'The plan.' }] });
    const systemOn = (store: SessionStore, prefix: string) =>
      systemFor({
        model: model(),
        tools: [echoTool, ...backgroundAgentTools()],
        store,
        clock: new SimulatedClock(1_000),
        ids: counterIds(prefix),
        agents: { folders: [folder] },
      });
    const recording = new RecordingStore();
    const original = systemOn(recording, 'id');
    await (await original.createAgent({ id: 'parent' })).run('supervise');
    await original.dispose();
    // The crash: right after the link was written, before the child was given its prompt.
    const points = crashPoints(recording.writes);
    const linked = points.findIndex(
      (point) => point.op === 'append' && point.events[0]!.type === 'agent.spawned',
    );
    const store = await crashedAt(points, linked + 1);
    const childId = String((await storedLogs(store)).get('parent')!.at(-1)!.data.childSessionId);
    const started = (await storedLogs(store)).get(childId)!;
    const runsWith = (config: unknown) => {
      const { permissionMode, limits } = config as { permissionMode: string; limits: { maxSteps: number } };
      return [permissionMode, limits.maxSteps];
    };
    expect(runsWith(started[0]!.data.config)).toEqual(['plan', 4]);

    const system = systemOn(store, 'r');
    const parent = await system.resumeAgent('parent');
    const [child] = parent.children();
    expect(await child!.result).toMatchObject({ reason: 'completed', text: 'The plan.' });
    await until(() => system.list().length === 1 && parent.state === 'ready.idle', 'the tree rests');
    const childLog = (await storedLogs(store)).get(childId)!;
    const resumed = childLog.find((event) => event.type === 'session.resumed');
    expect(runsWith(resumed?.data.config)).toEqual(['plan', 4]);
  });
});

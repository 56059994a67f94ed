// Graph paths of the agent chart (lifecycle + inbox), each driven through the real runtime.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { z } from 'zod';
import { AgentStateError } from '../../src/errors/agent-state-error.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { McpServerError } from '../../src/errors/mcp-server-error.ts';
import type { AnyTool } from '../../src/index.ts';
import { type AgentEvent, type AgentInput, agentMachine, type SetupStage } from '../../src/machines/agent.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { GateTool } from '../support/controllable.ts';
import {
  disposeAndVerify,
  expectInboxKept,
  expectResultsSoFar,
  rollbackAndVerify,
} from './support/agent-checks.ts';
import { AgentRig, finishCompactingTurn, finishTurn, settleAll, until } from './support/agent-driver.ts';
import type { StoreOp } from './support/gate-store.ts';
import { raceAlong } from './support/resume-race.ts';

type Snapshot = SnapshotFrom<typeof agentMachine>;
type Step = { event: AgentEvent; state: Snapshot };

const input: AgentInput = {
  agentId: 'a',
  agentKey: 'agent:a',
  lastTurn: 0,
  inbox: [],
  limits: { maxSteps: 25, maxUnknownToolCalls: 2 },
  preStepEveryStep: false,
  step: { model: 'gate-model', maxParallelTools: 10, jitterKey: 'a' },
};

const stageOf = (snapshot: Snapshot): SetupStage => Object.values(snapshot.value)[0] as SetupStage;
const lastStage = (snapshot: Snapshot) => snapshot.context.completedStages.at(-1);

/**
 * The event catalogue. Outside events (dispose, inbox, cancel) are offered only in states the runtime
 * rests in; `creating.publish` and rollback of tools/publish finish within one tick, so only their own
 * outcome can happen there.
 */
function events(snapshot: Snapshot): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (snapshot.matches('creating')) {
    const stage = stageOf(snapshot);
    out.push({ type: 'setup.done', stage, toolNames: ['probe'], systemHash: 'h' });
    // The tools stage fails for real (a tool it cannot describe) at once: no dispose can come before it.
    if (stage !== 'tools' || !snapshot.context.disposeRequested)
      out.push({ type: 'setup.error', stage, error: new Error(`${stage} failed`) });
    // Without MCP servers the servers stage, like publish, completes within the tick that starts it.
    if (stage !== 'publish' && stage !== 'servers') out.push({ type: 'agent.dispose' });
  }
  if (snapshot.matches('rollingBack')) {
    const stage = lastStage(snapshot);
    if (stage) out.push({ type: 'undo.done', stage });
    if (stage === 'session') out.push({ type: 'agent.dispose' });
  }
  if (snapshot.matches('ready')) {
    out.push(
      { type: 'agent.followup', id: 'f', message: 'follow' },
      { type: 'agent.steer', id: 's', message: 'steer' },
      { type: 'agent.inject', id: 'i', message: 'inject' },
      { type: 'agent.cancel', cause: 'user' },
      { type: 'agent.compact' },
      { type: 'agent.dispose' },
    );
  }
  if (snapshot.matches({ ready: 'running' }) || snapshot.matches({ disposing: 'quiescing' })) {
    const output = {
      ...{ turn: 1, reason: 'completed' as const, usage: emptyUsage, unclaimed: [] },
      ...{ contextUsage: { usedTokens: 0, contextWindow: 32_000 }, compactionTried: false },
    };
    out.push({ type: 'xstate.done.actor.turn', output });
  }
  // No sessionEnd hooks are configured here: the hook wait answers at once (hooks are tested in test/hooks).
  if (snapshot.matches({ disposing: 'endingSession' })) out.push({ type: 'hook.sessionEnd', decisions: [] });
  if (snapshot.matches({ disposing: 'flushing' })) out.push({ type: 'log.flushed' });
  if (snapshot.matches({ disposing: 'closing' })) out.push({ type: 'servers.closed' });
  if (snapshot.matches({ disposing: 'revoking' })) out.push({ type: 'revoke.done' });
  return out;
}

/**
 * Bounded key: the state, the undo record, dispose/held flags, the channels waiting, next-step input
 * sent to a running turn, and a compaction asked for (a turn that only compacts, or one passed on).
 */
function serializeState(snapshot: Snapshot, event?: AgentEvent): string {
  const { completedStages, disposeRequested, held, inbox } = snapshot.context;
  const channels = [...new Set(inbox.map((item) => item.channel))].sort();
  const forwarded =
    snapshot.matches({ ready: 'running' }) &&
    (event?.type === 'agent.steer' || event?.type === 'agent.inject' || event?.type === 'agent.compact')
      ? event.type
      : '';
  return JSON.stringify([snapshot.value, completedStages, disposeRequested, held, channels, forwarded]);
}

const pathsFor = (sessionEndHooks: boolean) =>
  getShortestPaths(agentMachine, {
    input: { ...input, ...(sessionEndHooks ? { sessionEndHooks } : {}) },
    events,
    serializeState: (snapshot, event) => serializeState(snapshot as Snapshot, event as AgentEvent),
    limit: 5_000,
  });

const label = (event: AgentEvent) =>
  'stage' in event && event.type !== 'undo.done' ? `${event.type}:${event.stage}` : event.type;

/** A tool built by hand (not by defineTool) whose input has a field JSON Schema cannot express. */
const undescribable: AnyTool = { ...new GateTool('dated').tool, input: z.object({ at: z.date() }) };

type Mode = 'new' | 'badServer' | 'badTool' | 'resumeRace';

function modeOf(steps: Step[]): Mode {
  for (const { event } of steps) {
    if (event.type === 'setup.error' && event.stage === 'servers') return 'badServer';
    if (event.type === 'setup.error' && event.stage === 'tools') return 'badTool';
    if (event.type === 'setup.error' && event.stage === 'publish') return 'resumeRace';
  }
  return 'new';
}

/** Events the runtime produces by itself right after the previous stimulus (no outside hand needed). */
function isAuto(event: AgentEvent): boolean {
  if (event.type === 'setup.done' || event.type === 'setup.error')
    return (
      event.stage === 'publish' ||
      event.stage === 'servers' ||
      (event.type === 'setup.error' && event.stage === 'tools')
    );
  if (event.type === 'undo.done') return event.stage !== 'session';
  return event.type === 'revoke.done' || event.type === 'servers.closed' || event.type === 'hook.sessionEnd';
}

/** Whether the turn running at step `j` of the path is one that only compacts (asked for while idle). */
function compactOnly(steps: Step[], j: number, initial: Snapshot): boolean {
  for (let k = j; k >= 0; k--) {
    const before = k > 0 ? steps[k - 1]!.state : initial;
    if (!before.matches({ ready: 'running' })) return steps[k]!.event.type === 'agent.compact';
  }
  return false;
}

/**
 * States the runtime rests in (with the store gate holding `holds`), where the real state is compared.
 * A turn that only compacts finds nothing in a new session and would end at once: holding its appends
 * keeps it running.
 */
function holdsFor(snapshot: Snapshot, compacting = false): StoreOp[] | undefined {
  if (compacting && snapshot.matches({ ready: 'running' })) return ['append'];
  if (snapshot.matches({ creating: 'session' })) return ['create'];
  if (snapshot.matches({ creating: 'tools' })) return ['append'];
  if (snapshot.matches('rollingBack')) return lastStage(snapshot) === 'session' ? ['remove'] : undefined;
  if (snapshot.matches({ ready: 'running' })) return snapshot.context.held ? ['append'] : [];
  if (snapshot.matches('ready') || snapshot.matches('disposed') || snapshot.matches('failed')) return [];
  if (snapshot.matches({ disposing: 'quiescing' }) || snapshot.matches({ disposing: 'flushing' }))
    return ['append'];
  return undefined;
}

const sessionError = new Error('the store refused the session');

async function stimulate(
  rig: AgentRig,
  event: AgentEvent,
  before: Snapshot,
  compacting: boolean,
): Promise<void> {
  switch (event.type) {
    case 'setup.done':
      return rig.store.release(event.stage === 'session' ? 'create' : 'append');
    case 'setup.error':
      return rig.store.fail('create', sessionError);
    case 'undo.done':
      return rig.store.release('remove');
    case 'agent.dispose':
      // Not awaited: the path goes on while it disposes; disposeAndVerify awaits the same shared promise.
      if (rig.agent) void rig.agent.dispose();
      else rig.send(event);
      return;
    case 'agent.followup':
      return void rig.live.followup(event.message);
    case 'agent.steer':
      return void rig.live.steer(event.message);
    case 'agent.inject':
      return void rig.live.inject(event.message);
    case 'agent.cancel':
      return rig.live.cancel(event.cause);
    case 'agent.compact':
      return void rig.live.compact();
    case 'xstate.done.actor.turn':
      if (compacting) return finishCompactingTurn(rig);
      if (before.matches({ ready: 'running' }) && !before.context.held) return finishTurn(rig);
      return rig.store.release('append');
    case 'log.flushed':
      return rig.store.release('append');
    default:
      throw new Error(`no stimulus for ${event.type}`);
  }
}

/** Drives one path: each outside stimulus, then the auto events after it, then the state check. */
async function drive(rig: AgentRig, steps: Step[], initial: Snapshot, mode: Mode): Promise<void> {
  let held: StoreOp[] = [];
  for (let i = -1; i < steps.length; i++) {
    if (i >= 0 && isAuto(steps[i]!.event)) continue;
    let j = i;
    while (j + 1 < steps.length && isAuto(steps[j + 1]!.event)) j++;
    const settled = j < 0 ? initial : steps[j]!.state;
    const holds = holdsFor(settled, compactOnly(steps, j, initial));
    // Keep holding what the stimulus may release, and already hold what the next resting state needs.
    rig.store.holdOnly([...held, ...(holds ?? [])]);
    if (i < 0) launch(rig, mode);
    else {
      const before = i === 0 ? initial : steps[i - 1]!.state;
      await stimulate(rig, steps[i]!.event, before, compactOnly(steps, i - 1, initial));
    }
    held = holds ?? [];
    rig.store.holdOnly(held);
    await settleAll();
    if (holds === undefined) continue;
    const what = `after ${i < 0 ? 'launch' : label(steps[i]!.event)}`;
    // The handle exists once the path has been ready, and then the inbox and results are checked on it.
    const created = [initial, ...steps.slice(0, j + 1).map((step) => step.state)].some((state) =>
      state.matches('ready'),
    );
    const real = () => {
      const { value, status } = rig.ref.getSnapshot();
      return [value, status, rig.agent !== undefined];
    };
    const expected = [settled.value, settled.status, created];
    await until(() => isDeepStrictEqual(real(), expected));
    expect(real(), `${what}: the state, the actor status, and whether the agent handle exists`).toEqual(
      expected,
    );
    if (!created) continue;
    expectInboxKept(rig);
    expectResultsSoFar(rig);
  }
}

/** An MCP server whose process exits before the handshake: the servers stage fails for real. */
const exitingServer = { broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] } };

function launch(rig: AgentRig, mode: Mode): void {
  if (mode === 'badServer')
    rig.launch(() => rig.system.createAgent({ id: rig.agentId, mcpServers: exitingServer }));
  // The tools stage fails for real on a tool whose input JSON Schema cannot express.
  else if (mode === 'badTool')
    rig.launch(() => rig.system.createAgent({ id: rig.agentId, tools: [undescribable] }));
  else rig.launch();
}

// Without `sessionEnd` hooks a dispose goes straight from the turn's end to `flushing`; with them it
// waits in `disposing.endingSession`. Both charts' paths are driven, each on a runtime configured alike.
for (const sessionEndHooks of [false, true]) {
  const paths = pathsFor(sessionEndHooks);
  describe(`agent chart graph paths${sessionEndHooks ? ', with sessionEnd hooks' : ''}`, () => {
    it('has the expected number of shortest paths', () => {
      // `disposing.endingSession` adds one resting combination for each of the 8 ways (held flag, queued
      // channels) a dispose reaches it.
      expect(paths).toHaveLength(sessionEndHooks ? 100 : 92);
      const resting = paths.filter((path) => path.state.matches({ disposing: 'endingSession' }));
      expect(resting).toHaveLength(sessionEndHooks ? 8 : 0);
      const through = paths.filter((path) =>
        path.steps.some((step) => step.event.type === 'hook.sessionEnd'),
      );
      expect(through).toHaveLength(sessionEndHooks ? 32 : 0);
    });

    for (const path of paths) {
      const steps = path.steps.slice(1) as Step[];
      const initial = path.steps[0]!.state as Snapshot;
      const name = steps.map((step) => label(step.event)).join(' > ') || '(created)';
      it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
        const mode = modeOf(steps);
        const rig = new AgentRig({ sessionEndHook: sessionEndHooks });
        if (mode === 'resumeRace')
          return raceAlong(rig, [{ event: { type: 'xstate.init' }, state: initial }, ...steps]);
        await drive(rig, steps, initial, mode);
        const failedStage = steps.find((step) => step.event.type === 'setup.error')?.event;
        const disposedEarly = steps.some(
          (step, k) =>
            step.event.type === 'agent.dispose' && !(k > 0 ? steps[k - 1]!.state : initial).matches('ready'),
        );
        if (!failedStage && !disposedEarly) return disposeAndVerify(rig);
        const completed = steps
          .filter((step) => step.event.type === 'setup.done')
          .map((step) => (step.event as { stage: SetupStage }).stage);
        // A dispose only marks the request: the stage under way still completes (and is undone).
        if (!failedStage && path.state.matches('creating')) completed.push(stageOf(path.state as Snapshot));
        return rollbackAndVerify(rig, {
          error: (error) => {
            if (failedStage?.type === 'setup.error' && failedStage.stage === 'session')
              expect(error).toBe(sessionError);
            else if (failedStage?.type === 'setup.error' && failedStage.stage === 'servers')
              expect(error).toBeInstanceOf(McpServerError);
            else if (failedStage) expect(error).toBeInstanceOf(ConfigError);
            else expect(error).toBeInstanceOf(AgentStateError);
          },
          completed,
          final: failedStage ? 'failed' : 'disposed',
        });
      });
    }
  });
}

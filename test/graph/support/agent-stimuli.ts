// The real stimulus for each event of the agent catalogue (catalogues/agent.ts), and where the agent suite
// compares the real agent with the path. The runtime passes some events by itself (a stage that finishes
// within its tick, an undo, the dispose stages after the flush), so a path's state is checked only where
// the runtime rests: where the gate store holds it, or where it waits for the outside world.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { z } from 'zod';
import type { AnyTool } from '../../../src/index.ts';
import type { AgentEvent, agentMachine } from '../../../src/machines/agent.ts';
import { GateTool } from '../../support/controllable.ts';
import { type AgentSnapshot, labelAgentEvent, lastStage } from '../catalogues/agent.ts';
import { expectInboxKept, expectResultsSoFar } from './agent-checks.ts';
import { type AgentRig, finishCompactingTurn, finishTurn, until } from './agent-driver.ts';
import type { StoreOp } from './gate-store.ts';
import type { ChartPath, ChartStep, EventTable } from './model.ts';
import { restingTables } from './resting-tables.ts';

type AgentPath = ChartPath<typeof agentMachine>;
type AgentStep = ChartStep<typeof agentMachine>;

/** How the agent is created: a new one, or one whose servers or tools stage fails, or a resume race. */
export type Mode = 'new' | 'badServer' | 'badTool' | 'resumeRace';

export function modeOf(events: readonly AgentEvent[]): Mode {
  for (const event of events) {
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
function compactOnly(steps: readonly AgentStep[], j: number, initial: AgentSnapshot): boolean {
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
function holdsFor(snapshot: AgentSnapshot, compacting = false): StoreOp[] | undefined {
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

/** The error the store answers a failing `create` with. */
export const sessionError = new Error('the store refused the session');

/** A tool built by hand (not by defineTool) whose input has a field JSON Schema cannot express. */
const undescribable: AnyTool = { ...new GateTool('dated').tool, input: z.object({ at: z.date() }) };

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

/**
 * The tables for one path: `launch` creates the agent and checks where it rests first; the state check
 * compares the real state, status, handle, inbox and results where the runtime rests.
 */
export function agentTables(rig: AgentRig, path: AgentPath, mode: Mode) {
  const initial = path.steps[0]!.state;
  const steps = path.steps.slice(1);
  const stateAt = (index: number) => (index < 0 ? initial : steps[index]!.state);

  async function check(settled: AgentSnapshot, index: number, what: string): Promise<void> {
    // The handle exists once the path has been ready, and then the inbox and results are checked on it.
    const created = [initial, ...steps.slice(0, index + 1).map((step) => step.state)].some((state) =>
      state.matches('ready'),
    );
    const real = () => {
      // The first launch of a process may wait for the tracing API to load before the actor exists.
      const ref = rig.agentRefs.at(-1);
      if (!ref) return ['no agent actor yet'];
      const { value, status } = ref.getSnapshot();
      return [value, status, rig.agent !== undefined];
    };
    const expected = [settled.value, settled.status, created];
    await until(() => isDeepStrictEqual(real(), expected));
    expect(real(), `${what}: the state, the actor status, and whether the agent handle exists`).toEqual(
      expected,
    );
    if (!created) return;
    expectInboxKept(rig);
    expectResultsSoFar(rig);
  }

  const stimuli: EventTable<typeof agentMachine> = {
    'setup.done': (event) => rig.store.release(event.stage === 'session' ? 'create' : 'append'),
    'setup.error': () => rig.store.fail('create', sessionError),
    'undo.done': () => rig.store.release('remove'),
    'agent.dispose': (event) => {
      // Not awaited: the path goes on while it disposes; disposeAndVerify awaits the same shared promise.
      if (rig.agent) void rig.agent.dispose();
      else rig.send(event);
    },
    'agent.followup': (event) => void rig.live.followup(event.message),
    'agent.steer': (event) => void rig.live.steer(event.message),
    'agent.inject': (event) => void rig.live.inject(event.message),
    'agent.cancel': (event) => rig.live.cancel(event.cause),
    'agent.compact': () => void rig.live.compact(),
    'xstate.done.actor.turn': (_event, { index }) => {
      if (compactOnly(steps, index - 1, initial)) return finishCompactingTurn(rig);
      const before = stateAt(index - 1);
      if (before.matches({ ready: 'running' }) && !before.context.held) return finishTurn(rig);
      return rig.store.release('append');
    },
    'log.flushed': () => rig.store.release('append'),
  };
  const tables = restingTables(rig, path, {
    byItself: isAuto,
    holds: (state, index) => holdsFor(state, compactOnly(steps, index, initial)),
    stimuli,
    check,
    label: labelAgentEvent,
  });
  return { ...tables, launch: () => tables.start(() => launch(rig, mode)) };
}

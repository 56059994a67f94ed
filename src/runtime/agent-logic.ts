import type { AnyStateMachine, MachineImplementationsFrom } from 'xstate';
import { createApprovalActor } from '../actors/approval.ts';
import { createCloseServersActor } from '../actors/close-servers.ts';
import type { DependenciesOf } from '../actors/dependencies.ts';
import { createFinishWorktreeActor } from '../actors/finish-worktree.ts';
import {
  createPostToolHookActor,
  createPreCompactHookActor,
  createPreToolHookActor,
  createRequestErrorHookActor,
  createStopHookActor,
  createUserMessageHookActor,
} from '../actors/hook.ts';
import { createLogFlushActor } from '../actors/log-flush.ts';
import { createModelCallActor } from '../actors/model-call.ts';
import { createOutputCheckActor } from '../actors/output-check.ts';
import { createPreStepHookActor } from '../actors/pre-step-hook.ts';
import { createReleaseChildrenActor } from '../actors/release-children.ts';
import { createRequestHookActor } from '../actors/request-hook.ts';
import { createRevokeActor } from '../actors/revoke.ts';
import { createSessionEndHookActor } from '../actors/session-hooks.ts';
import { createSetupStageActor } from '../actors/setup-stage.ts';
import { createRetryTimerActor } from '../actors/timer.ts';
import { createToolCallActor } from '../actors/tool-call.ts';
import { createToolCheckActor } from '../actors/tool-check.ts';
import { createUndoStageActor } from '../actors/undo-stage.ts';
import type { Clock } from '../core/clock.ts';
import { agentMachine } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import type { LogEntry } from '../session/types.ts';
import type { AgentPorts } from './agent-ports.ts';

/** An I/O actor, and the port of its agent that it reads (a type error when the two do not fit). */
type Row<Logic> = (portsOf: DependenciesOf<AgentPorts>) => Logic;

function reads<Port extends keyof AgentPorts, Logic>(
  create: (depsOf: DependenciesOf<AgentPorts[Port]>) => Logic,
  port: Port,
): Row<Logic> {
  return (portsOf) => create((agentKey) => portsOf(agentKey)[port]);
}

/**
 * Every I/O actor of the four charts, by chart, and the port each reads: adding an actor is one row. Each
 * chart's rows plus its child chart must cover every actor the chart spawns (`ChartActors`, checked below).
 */
const ioActors = {
  toolBatch: {
    toolCheck: reads(createToolCheckActor, 'toolCheck'),
    toolCall: reads(createToolCallActor, 'toolCall'),
    approval: reads(createApprovalActor, 'approval'),
    logFlush: reads(createLogFlushActor, 'flush'),
    preToolHook: reads(createPreToolHookActor, 'hooks'),
    postToolHook: reads(createPostToolHookActor, 'hooks'),
  },
  step: {
    requestErrorHook: reads(createRequestErrorHookActor, 'hooks'),
    requestHook: reads(createRequestHookActor, 'hooks'),
    modelCall: reads(createModelCallActor, 'modelCall'),
  },
  turn: {
    logFlush: reads(createLogFlushActor, 'flush'),
    preStepHook: reads(createPreStepHookActor, 'preStep'),
    userMessageHook: reads(createUserMessageHookActor, 'hooks'),
    stopHook: reads(createStopHookActor, 'hooks'),
    preCompactHook: reads(createPreCompactHookActor, 'hooks'),
    outputCheck: reads(createOutputCheckActor, 'outputCheck'),
  },
  agent: {
    logFlush: reads(createLogFlushActor, 'flush'),
    setupStage: reads(createSetupStageActor, 'stage'),
    undoStage: reads(createUndoStageActor, 'undo'),
    closeServers: reads(createCloseServersActor, 'closeServers'),
    finishWorktree: reads(createFinishWorktreeActor, 'finishWorktree'),
    revoke: reads(createRevokeActor, 'revoke'),
    sessionEndHook: reads(createSessionEndHookActor, 'hooks'),
    releaseChildren: reads(createReleaseChildrenActor, 'releaseChildren'),
  },
};

/** Every actor a chart spawns, required: a chart whose actor has no row does not compile. */
type ChartActors<Machine extends AnyStateMachine> = Required<
  NonNullable<MachineImplementationsFrom<Machine>['actors']>
>;

function built<Rows extends Record<string, Row<unknown>>>(
  rows: Rows,
  portsOf: DependenciesOf<AgentPorts>,
): { [Name in keyof Rows]: ReturnType<Rows[Name]> } {
  const actors: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(rows)) actors[name] = row(portsOf);
  return actors as { [Name in keyof Rows]: ReturnType<Rows[Name]> };
}

/**
 * The agent's statecharts with the real I/O actors and the log writer plugged in, built once per system.
 * Building them per agent (a `provide()` closing over that agent's session) rebuilt every state node
 * for each agent and started its first turn with cold transition caches. Instead each agent registers
 * its ports under a key that its input carries; the charts pass the key down to every actor they spawn,
 * and each actor looks its agent's ports up once, when it starts.
 */
export class AgentLogic {
  /** Typed as any machine: its full type is internal, and spelled out it made this file's .d.ts 140 kB. */
  readonly machine: AnyStateMachine;
  private readonly byKey = new Map<string, AgentPorts>();

  constructor(clock: Clock) {
    const portsOf = this.portsOf;
    // The log action runs inside transitions, where the chart's context carries the key.
    const actions = {
      log: ({ context }: { context: AgentKeyed }, entry: LogEntry) => portsOf(context.agentKey).append(entry),
    };
    const toolBatch = toolBatchMachine.provide({
      actions,
      actors: built(ioActors.toolBatch, portsOf) satisfies ChartActors<typeof toolBatchMachine>,
    });
    const step = stepMachine.provide({
      actions,
      actors: {
        ...built(ioActors.step, portsOf),
        toolBatch,
        retryTimer: createRetryTimerActor(clock),
      } satisfies ChartActors<typeof stepMachine>,
    });
    const turn = turnMachine.provide({
      actions,
      actors: { ...built(ioActors.turn, portsOf), step } satisfies ChartActors<typeof turnMachine>,
    });
    this.machine = agentMachine.provide({
      actions,
      actors: { ...built(ioActors.agent, portsOf), turn } satisfies ChartActors<typeof agentMachine>,
    });
  }

  /**
   * Makes an agent's ports known under `agentKey` (unique per launch) before its actor is spawned with
   * that key in its input; the returned function forgets them once the agent is released.
   */
  register(agentKey: string, ports: AgentPorts): () => void {
    this.byKey.set(agentKey, ports);
    return () => this.byKey.delete(agentKey);
  }

  /** The ports registered under an agent key; a key nobody registered is a wiring error. */
  private readonly portsOf = (agentKey: string): AgentPorts => {
    const ports = this.byKey.get(agentKey);
    if (ports === undefined) throw new Error(`no agent is registered under the key "${agentKey}"`);
    return ports;
  };
}

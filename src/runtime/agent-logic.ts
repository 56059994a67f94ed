import type { AnyActorRef } from 'xstate';
import { type Approver, createApprovalActor } from '../actors/approval.ts';
import { createRevokeActor, createStageActor, createUndoActor } from '../actors/host-callbacks.ts';
import type { Publish } from '../actors/live-event.ts';
import { createLogFlushActor } from '../actors/log-flush.ts';
import { createModelCallActor, type ModelCallDeps } from '../actors/model-call.ts';
import { createPreStepHookActor, type PreStepHook } from '../actors/pre-step-hook.ts';
import { createRetryTimerActor } from '../actors/timer.ts';
import { createToolCallActor, type ToolCallDeps } from '../actors/tool-call.ts';
import { createToolCheckActor, type ToolCheckDeps } from '../actors/tool-check.ts';
import type { Clock } from '../core/clock.ts';
import { messageOf } from '../errors/describe-value.ts';
import { agentMachine, type SetupStage } from '../machines/agent.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import { ProjectionCache } from '../session/projection-cache.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { LogEntry } from '../session/types.ts';
import type { AgentResources } from './agent-resources.ts';

export type AgentLogicDeps = {
  resources: AgentResources;
  gate: AgentPermissionGate;
  clock: Clock;
  publish: Publish;
  approve: Approver | undefined;
  preStep: PreStepHook | undefined;
  /** Called after dispose flushed the log; unregisters the agent and closes its session. */
  revoke: () => Promise<void>;
};

type OnError = (error: unknown) => void;

/** Everything the actors of one agent work with: its session, tools, permissions and host callbacks. */
type AgentPorts = {
  append: (entry: LogEntry) => void;
  modelCall: ModelCallDeps;
  toolCall: ToolCallDeps;
  toolCheck: ToolCheckDeps;
  approval: { agentId: string; approver: Approver | undefined };
  preStep: { agentId: string; hook: PreStepHook | undefined };
  flush: { log: SessionLog; onError: OnError };
  stage: (stage: SetupStage) => Promise<{ toolNames?: string[]; systemHash?: string }>;
  undo: { undo: (stage: SetupStage) => Promise<void>; onError: OnError };
  revoke: { revoke: () => Promise<void>; onError: OnError };
};

function portsFor(deps: AgentLogicDeps): AgentPorts {
  const { resources, clock, publish } = deps;
  const agentId = resources.plan.agentId;
  const onError = (error: unknown) =>
    publish({
      type: 'runtime.error',
      agentId,
      message: messageOf(error),
    });
  // The session log exists only after the first setup stage; actors read it when they run.
  const lazyLog = {
    flush: () => resources.requireLog().flush(),
    get events() {
      return resources.requireLog().events;
    },
  } as SessionLog;
  const projection = new ProjectionCache();
  const lingering = new LingeringRuns();
  return {
    append: (entry) => resources.requireLog().append(entry),
    modelCall: {
      agentId,
      provider: resources.plan.provider,
      log: lazyLog,
      buildRequest: () => projection.project(resources.requireLog().events, resources.projectOptions()),
      publish,
    },
    toolCall: {
      agentId,
      tools: resources.tools,
      cwd: resources.plan.cwd,
      clock,
      publish,
      writeAhead: () => resources.requireLog().flush(),
      lingering: lingering.add,
    },
    toolCheck: { tools: resources.tools, permissions: deps.gate },
    approval: { agentId, approver: deps.approve },
    preStep: { agentId, hook: deps.preStep },
    flush: { log: lazyLog, onError },
    stage: (stage) => resources.runStage(stage),
    undo: { undo: (stage) => resources.undoStage(stage), onError },
    revoke: {
      revoke: async () => {
        await lingering.settled(clock, lingeringWaitMs);
        await deps.revoke();
      },
      onError,
    },
  };
}

/** How long dispose waits for tools that were stopped but have not returned yet. */
const lingeringWaitMs = 5_000;

/**
 * Tool runs that outlived their call: reported aborted or timed out after the grace while the tool was
 * still winding down (bash stopping the processes a command left). Dispose waits for them, bounded, so a
 * host that exits right after `dispose()` does not cut that work short.
 */
class LingeringRuns {
  private readonly runs = new Set<Promise<unknown>>();

  readonly add = (work: Promise<unknown>): void => {
    if (this.runs.has(work)) return;
    this.runs.add(work);
    const remove = () => {
      this.runs.delete(work);
    };
    work.then(remove, remove);
  };

  /**
   * Resolves when every lingering run has returned, or after `ms` on the injected clock. The bound does
   * not abort anything: each run was already told to stop through its signal.
   */
  settled(clock: Clock, ms: number): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const cancel = clock.setTimer(resolve, ms);
      void Promise.allSettled([...this.runs]).then(() => {
        cancel();
        resolve();
      });
    });
  }
}

/**
 * The agent's statecharts with the real I/O actors and the log writer plugged in, built once per system.
 * Building them per agent (a `provide()` closing over that agent's session) rebuilt every state node
 * for each agent and started its first turn with cold transition caches. Instead each agent registers
 * its ports under its system id, and an actor resolves them from its own place in the actor tree.
 */
export class AgentLogic {
  readonly machine;
  private readonly bySystemId = new Map<string, AgentPorts>();
  private readonly byActor = new WeakMap<AnyActorRef, AgentPorts>();

  constructor(clock: Clock) {
    const ports = this.portsOf;
    const log = { log: ({ self }: { self: AnyActorRef }, entry: LogEntry) => ports(self).append(entry) };
    const flush = createLogFlushActor((self) => ports(self).flush);
    const toolBatch = toolBatchMachine.provide({
      actions: log,
      actors: {
        toolCheck: createToolCheckActor((self) => ports(self).toolCheck),
        toolCall: createToolCallActor((self) => ports(self).toolCall),
        approval: createApprovalActor((self) => ports(self).approval),
      },
    });
    const step = stepMachine.provide({
      actions: log,
      actors: {
        toolBatch,
        retryTimer: createRetryTimerActor(clock),
        modelCall: createModelCallActor((self) => ports(self).modelCall),
      },
    });
    const turn = turnMachine.provide({
      actions: log,
      actors: {
        step,
        logFlush: flush,
        preStepHook: createPreStepHookActor((self) => ports(self).preStep),
      },
    });
    this.machine = agentMachine.provide({
      actions: log,
      actors: {
        turn,
        logFlush: flush,
        setupStage: createStageActor((self) => ports(self).stage),
        undoStage: createUndoActor((self) => ports(self).undo),
        revoke: createRevokeActor((self) => ports(self).revoke),
      },
    });
  }

  /** Makes an agent's dependencies known before its actor is spawned with this system id. */
  register(systemId: string, deps: AgentLogicDeps): () => void {
    this.bySystemId.set(systemId, portsFor(deps));
    return () => this.bySystemId.delete(systemId);
  }

  /** The ports of the agent an actor belongs to: the nearest registered agent up its parent chain. */
  private readonly portsOf = (self: AnyActorRef): AgentPorts => {
    const known = this.byActor.get(self);
    if (known) return known;
    for (let ref: AnyActorRef | undefined = self; ref; ref = ref._parent) {
      // Every actor is an XState `Actor`, which carries the system id it was spawned with.
      const systemId = (ref as { systemId?: string }).systemId;
      const ports = systemId === undefined ? undefined : this.bySystemId.get(systemId);
      if (ports) {
        this.byActor.set(self, ports);
        return ports;
      }
    }
    throw new Error(`actor "${self.id}" belongs to no registered agent`);
  };
}

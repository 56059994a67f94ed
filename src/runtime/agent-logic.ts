import {
  createApprovalActor,
  createPreStepHookActor,
  createRevokeActor,
  createStageActor,
  createUndoActor,
} from '../actors/host-callbacks.ts';
import type { Publish } from '../actors/live-event.ts';
import { createLogFlushActor } from '../actors/log-flush.ts';
import { createModelCallActor } from '../actors/model-call.ts';
import { createRetryTimerActor } from '../actors/timer.ts';
import { createToolCallActor } from '../actors/tool-call.ts';
import { createToolCheckActor } from '../actors/tool-check.ts';
import { agentMachine } from '../machines/agent.ts';
import type { LogEntry } from '../machines/log-entry.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import { ProjectionCache } from '../session/projection-cache.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { AgentResources } from './agent-resources.ts';
import type { Clock } from './clock.ts';
import type { Approver, PreStepHook } from './options.ts';
import type { AgentPermissionGate } from './permission-gate.ts';

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

/**
 * The agent's statecharts with the real I/O actors and the log writer plugged in. Built once per agent,
 * because the actors close over that agent's session, tools and permissions.
 */
export function buildAgentLogic(deps: AgentLogicDeps) {
  const { resources, clock, publish } = deps;
  const agentId = resources.plan.agentId;
  const log = { log: (_: unknown, entry: LogEntry) => resources.requireLog().append(entry) };
  const reportError = (error: unknown) =>
    publish({
      type: 'runtime.error',
      agentId,
      message: error instanceof Error ? error.message : String(error),
    });
  // The session log exists only after the first setup stage; actors read it when they run.
  const lazyLog = {
    flush: () => resources.requireLog().flush(),
    get events() {
      return resources.requireLog().events;
    },
  } as SessionLog;
  const flushActor = createLogFlushActor(lazyLog, reportError);
  const projection = new ProjectionCache();

  const toolBatch = toolBatchMachine.provide({
    actions: log,
    actors: {
      toolCheck: createToolCheckActor({ tools: resources.tools, permissions: deps.gate }),
      toolCall: createToolCallActor({
        agentId,
        tools: resources.tools,
        cwd: resources.plan.cwd,
        clock,
        publish,
        writeAhead: () => resources.requireLog().flush(),
      }),
      approval: createApprovalActor(agentId, deps.approve),
    },
  });
  const step = stepMachine.provide({
    actions: log,
    actors: {
      toolBatch,
      retryTimer: createRetryTimerActor(clock),
      modelCall: createModelCallActor({
        agentId,
        provider: resources.plan.provider,
        log: lazyLog,
        buildRequest: () => projection.project(resources.requireLog().events, resources.projectOptions()),
        publish,
      }),
    },
  });
  const turn = turnMachine.provide({
    actions: log,
    actors: { step, logFlush: flushActor, preStepHook: createPreStepHookActor(agentId, deps.preStep) },
  });
  return agentMachine.provide({
    actions: log,
    actors: {
      turn,
      logFlush: flushActor,
      setupStage: createStageActor((stage) => resources.runStage(stage)),
      undoStage: createUndoActor((stage) => resources.undoStage(stage), reportError),
      revoke: createRevokeActor(deps.revoke, reportError),
    },
  });
}

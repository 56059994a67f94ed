import { type ApprovalDeps, type Approver, createApprovalActor } from '../actors/approval.ts';
import { type CloseServersDeps, createCloseServersActor } from '../actors/close-servers.ts';
import {
  base,
  createPostToolHookActor,
  createPreCompactHookActor,
  createPreToolHookActor,
  createRequestErrorHookActor,
  createStopHookActor,
  createUserMessageHookActor,
  type HookDeps,
} from '../actors/hook.ts';
import type { Publish } from '../actors/live-event.ts';
import { createLogFlushActor, type LogFlushDeps } from '../actors/log-flush.ts';
import { createModelCallActor, type ModelCallDeps, type PlannedCompaction } from '../actors/model-call.ts';
import { createPreStepHookActor, type PreStepHook, type PreStepHookDeps } from '../actors/pre-step-hook.ts';
import { createRequestHookActor, requestChanges, routedProvider } from '../actors/request-hook.ts';
import { createRevokeActor, type RevokeDeps } from '../actors/revoke.ts';
import { createSessionEndHookActor, runSessionStart } from '../actors/session-hooks.ts';
import { createSetupStageActor, type RunStage } from '../actors/setup-stage.ts';
import { createRetryTimerActor } from '../actors/timer.ts';
import { createToolCallActor, type LongOutputs, type ToolCallDeps } from '../actors/tool-call.ts';
import { createToolCheckActor, type ToolCheckDeps } from '../actors/tool-check.ts';
import { createUndoStageActor, type UndoStageDeps } from '../actors/undo-stage.ts';
import type { Clock } from '../core/clock.ts';
import { messageOf } from '../errors/describe-value.ts';
import { agentMachine } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import type { Provider } from '../providers/types.ts';
import { planCompaction } from '../session/compaction-plan.ts';
import { compactionRequest } from '../session/compaction-request.ts';
import { lastContextUse } from '../session/context-tokens.ts';
import { ProjectionCache } from '../session/projection-cache.ts';
import { isEvent, type LogEntry, type LogEvent } from '../session/types.ts';
import type { AgentResources } from './agent-resources.ts';
import type { HookTranscripts } from './hook-transcripts.ts';
import type { CompactionConfig } from './options-schema.ts';

export type AgentLogicDeps = {
  resources: AgentResources;
  gate: AgentPermissionGate;
  clock: Clock;
  publish: Publish;
  approve: Approver | undefined;
  preStep: PreStepHook | undefined;
  /** How the agent's hook points are consulted (live or from a recording), and where transcripts go (live). */
  hooks: Pick<HookDeps, 'consult'> & {
    transcripts?: HookTranscripts;
    /** `preTool` hooks are consulted: they see calls that need approval before a headless denial. */
    preTool?: boolean;
  };
  /** Called after dispose flushed the log; unregisters the agent and closes its session. */
  revoke: () => Promise<void>;
  /** The cap on results the model reads whole, and where longer ones are saved. */
  longOutputs: LongOutputs;
  compaction: Pick<CompactionConfig, 'keepRecentTurns' | 'instructions' | 'model'>;
  /** The models a `request` hook may send a step to, by name (none in a replay). */
  models: Readonly<Record<string, Provider>>;
};

/** Everything the actors of one agent work with: its session, tools, permissions and host callbacks. */
type AgentPorts = {
  append: (entry: LogEntry) => void;
  modelCall: ModelCallDeps;
  toolCall: ToolCallDeps;
  toolCheck: ToolCheckDeps;
  approval: ApprovalDeps;
  preStep: PreStepHookDeps;
  hooks: HookDeps;
  flush: LogFlushDeps;
  stage: RunStage;
  undo: UndoStageDeps;
  closeServers: CloseServersDeps;
  revoke: RevokeDeps;
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
  // The session log exists only after the first setup stage; actors reach it when they run.
  const flush = () => resources.requireLog().flush();
  const projection = new ProjectionCache();
  const lingering = new LingeringRuns();
  const transcripts = deps.hooks.transcripts;
  const toolCheck: ToolCheckDeps = {
    tools: resources.tools,
    permissions: deps.gate,
    ...(deps.hooks.preTool === true ? { hooksDecideAsks: true } : {}),
  };
  const hooks: HookDeps = {
    sessionId: agentId,
    cwd: resources.plan.cwd,
    consult: deps.hooks.consult,
    permissionMode: () => deps.gate.mode,
    ...(transcripts
      ? {
          transcriptPath: () => transcripts.write(agentId, resources.plan.cwd, resources.requireLog().events),
        }
      : {}),
    check: toolCheck,
    lastAnswer: () => lastAnswerText(resources.requireLog().events),
    request: () => {
      const { system, tools } = resources.projectOptions();
      const names = tools.map((spec) => spec.name);
      return { system, tools: names, model: resources.plan.provider.model, models: Object.keys(deps.models) };
    },
    ...(resources.plan.parent !== undefined ? { parent: resources.plan.parent } : {}),
  };
  return {
    append: (entry) => resources.requireLog().append(entry),
    modelCall: {
      agentId,
      provider: routedProvider(resources.plan.provider, deps.models, () => resources.requireLog().events),
      flush,
      buildRequest: () => {
        const { events } = resources.requireLog();
        return requestChanges(events, projection.project(events, resources.projectOptions()));
      },
      publish,
      planCompaction: (instructions) => planned(resources.requireLog().events, deps.compaction, instructions),
      compactionProvider: deps.compaction.model ?? resources.plan.provider,
    },
    toolCall: {
      agentId,
      tools: resources.tools,
      cwd: resources.plan.cwd,
      clock,
      publish,
      writeAhead: flush,
      lingering: lingering.add,
      longOutputs: deps.longOutputs,
      skillFolders: resources.skills.folders,
    },
    toolCheck,
    approval: { agentId, approver: deps.approve },
    preStep: {
      agentId,
      hook: deps.preStep,
      // MCP tool lists and the permission mode (a plan accepted, `setPermissionMode`) change the tools.
      prepareStep: (turn, step, signal) => resources.prepareStep(turn, step, signal),
      consult: (turn, step, signal) =>
        hooks.consult('preStep')(base(hooks, 'preStep', { turn, step }), { value: {} }, signal),
    },
    hooks,
    flush: { flush, onError },
    stage: async (stage, signal) => {
      const done = await resources.runStage(stage, signal);
      // The agent is set up once it is published: the `sessionStart` hooks are told then, before any turn.
      if (stage !== 'publish') return done;
      return {
        ...done,
        sessionStart: await runSessionStart(hooks, sessionSource[resources.plan.origin.kind], signal),
      };
    },
    undo: { undo: (stage) => resources.undoStage(stage), onError },
    closeServers: { close: () => resources.closeServers(), onError },
    revoke: {
      revoke: async () => {
        await lingering.settled(clock, lingeringWaitMs);
        await deps.revoke();
      },
      onError,
    },
  };
}

/** The compaction of the log as it stands, with the host's instructions and those of this request. */
function planned(
  events: readonly LogEvent[],
  config: AgentLogicDeps['compaction'],
  instructions: string | undefined,
): PlannedCompaction | undefined {
  const plan = planCompaction(events, config);
  if (plan === undefined) return undefined;
  const all = [config.instructions, instructions].filter((text) => text !== undefined).join('\n');
  return {
    replaces: plan.replaces,
    tokensBefore: lastContextUse(events).usedTokens,
    request: compactionRequest(events, plan, all === '' ? {} : { instructions: all }),
  };
}

/** The text of the model's last answer in the log (what the `stop` hooks are told). */
function lastAnswerText(events: readonly LogEvent[]): string {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (isEvent(event, 'assistant.message')) return event.data.text;
  }
  return '';
}

/** What the `sessionStart` hooks are told about how the session began (Claude Code's `source`). */
const sessionSource = { new: 'startup', resume: 'resume', fork: 'fork' } as const;

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
 * its ports under a key that its input carries; the charts pass the key down to every actor they spawn,
 * and each actor looks its agent's ports up once, when it starts.
 */
export class AgentLogic {
  readonly machine;
  private readonly byKey = new Map<string, AgentPorts>();

  constructor(clock: Clock) {
    const ports = this.portsOf;
    // The log action runs inside transitions, where the chart's context carries the key.
    const log = {
      log: ({ context }: { context: AgentKeyed }, entry: LogEntry) => ports(context.agentKey).append(entry),
    };
    const flush = createLogFlushActor((key) => ports(key).flush);
    const toolBatch = toolBatchMachine.provide({
      actions: log,
      actors: {
        toolCheck: createToolCheckActor((key) => ports(key).toolCheck),
        toolCall: createToolCallActor((key) => ports(key).toolCall),
        approval: createApprovalActor((key) => ports(key).approval),
        logFlush: flush,
        preToolHook: createPreToolHookActor((key) => ports(key).hooks),
        postToolHook: createPostToolHookActor((key) => ports(key).hooks),
      },
    });
    const step = stepMachine.provide({
      actions: log,
      actors: {
        toolBatch,
        retryTimer: createRetryTimerActor(clock),
        requestErrorHook: createRequestErrorHookActor((key) => ports(key).hooks),
        requestHook: createRequestHookActor((key) => ports(key).hooks),
        modelCall: createModelCallActor((key) => ports(key).modelCall),
      },
    });
    const turn = turnMachine.provide({
      actions: log,
      actors: {
        step,
        logFlush: flush,
        preStepHook: createPreStepHookActor((key) => ports(key).preStep),
        userMessageHook: createUserMessageHookActor((key) => ports(key).hooks),
        stopHook: createStopHookActor((key) => ports(key).hooks),
        preCompactHook: createPreCompactHookActor((key) => ports(key).hooks),
      },
    });
    this.machine = agentMachine.provide({
      actions: log,
      actors: {
        turn,
        logFlush: flush,
        setupStage: createSetupStageActor((key) => ports(key).stage),
        undoStage: createUndoStageActor((key) => ports(key).undo),
        closeServers: createCloseServersActor((key) => ports(key).closeServers),
        revoke: createRevokeActor((key) => ports(key).revoke),
        sessionEndHook: createSessionEndHookActor((key) => ports(key).hooks),
      },
    });
  }

  /**
   * Makes an agent's dependencies known under `agentKey` (unique per launch) before its actor is spawned
   * with that key in its input; the returned function forgets them once the agent is released.
   */
  register(agentKey: string, deps: AgentLogicDeps): () => void {
    this.byKey.set(agentKey, portsFor(deps));
    return () => this.byKey.delete(agentKey);
  }

  /** The ports registered under an agent key; a key nobody registered is a wiring error. */
  private readonly portsOf = (agentKey: string): AgentPorts => {
    const ports = this.byKey.get(agentKey);
    if (ports === undefined) throw new Error(`no agent is registered under the key "${agentKey}"`);
    return ports;
  };
}

// What the actors of one agent work with, built from its body and the system's host services. The actors
// reach these ports by the agent's key (agent-logic.ts); nothing else of the body is visible to them.
import type { ApprovalDeps, Approver } from '../actors/approval.ts';
import type { CloseServersDeps } from '../actors/close-servers.ts';
import type { FinishWorktreeDeps } from '../actors/finish-worktree.ts';
import { base, type HookDeps } from '../actors/hook.ts';
import type { Publish } from '../actors/live-event.ts';
import type { LogFlushDeps } from '../actors/log-flush.ts';
import type { ModelCallDeps, PlannedCompaction } from '../actors/model-call.ts';
import type { OutputCheckDeps } from '../actors/output-check.ts';
import type { PreStepHook, PreStepHookDeps } from '../actors/pre-step-hook.ts';
import type { ReleaseChildrenDeps } from '../actors/release-children.ts';
import { requestChanges, routedProvider } from '../actors/request-hook.ts';
import type { RevokeDeps } from '../actors/revoke.ts';
import { runSessionStart } from '../actors/session-hooks.ts';
import type { StageRunner } from '../actors/setup-stage.ts';
import type { LongOutputs, ToolCallDeps } from '../actors/tool-call.ts';
import type { ToolCheckDeps } from '../actors/tool-check.ts';
import type { UndoStageDeps } from '../actors/undo-stage.ts';
import type { Clock } from '../core/clock.ts';
import { extended } from '../core/extended.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { SetupStage } from '../machines/agent.ts';
import type { ToolsUpdate } from '../machines/turn-types.ts';
import type { AgentPermissionGate } from '../permissions/gate.ts';
import type { Provider, ToolSpec } from '../providers/types.ts';
import { planCompaction } from '../session/compaction-plan.ts';
import { compactionRequest } from '../session/compaction-request.ts';
import { lastContextUse } from '../session/context-tokens.ts';
import { ProjectionCache } from '../session/projection-cache.ts';
import type { SessionLog } from '../session/session-log.ts';
import { currentOutputFormat } from '../session/typed-turns.ts';
import { isEvent, type LogEntry, type LogEvent } from '../session/types.ts';
import type { SkillFolders } from '../tools/skill-files.ts';
import type { AgentOffer } from './agent-offer.ts';
import type { AgentOrigin } from './agent-spec.ts';
import type { HookTranscripts } from './hook-transcripts.ts';
import { LingeringRuns } from './lingering-runs.ts';
import type { CompactionConfig } from './options-schema.ts';
import type { OutputChecks } from './output-checks.ts';

/** Everything the actors of one agent work with: its session, tools, permissions and host callbacks. */
export type AgentPorts = {
  append: (entry: LogEntry) => void;
  modelCall: ModelCallDeps;
  toolCall: ToolCallDeps;
  toolCheck: ToolCheckDeps;
  approval: ApprovalDeps;
  preStep: PreStepHookDeps;
  hooks: HookDeps;
  outputCheck: OutputCheckDeps;
  flush: LogFlushDeps;
  stage: StageRunner;
  undo: UndoStageDeps;
  closeServers: CloseServersDeps;
  finishWorktree: FinishWorktreeDeps;
  revoke: RevokeDeps;
  releaseChildren: ReleaseChildrenDeps;
};

/** What the system lends an agent's actors: the host's callbacks and the services every agent shares. */
export type HostServices = {
  clock: Clock;
  approve: Approver | undefined;
  preStep: PreStepHook | undefined;
  /** How the agent's hook points are consulted (live or from a recording), and where transcripts go (live). */
  hooks: Pick<HookDeps, 'consult'> & {
    transcripts?: HookTranscripts | undefined;
    /** `preTool` hooks are consulted: they see calls that need approval before a headless denial. */
    preTool?: boolean;
    /** `sessionStart` hooks are told when the agent is published (a top-level agent's). */
    sessionStart?: boolean;
  };
  /** The models a `request` hook may send a step to, by name (none in a replay). */
  models: Readonly<Record<string, Provider>>;
  /** The cap on results the model reads whole, and where longer ones are saved. */
  longOutputs: LongOutputs;
  compaction: Pick<CompactionConfig, 'keepRecentTurns' | 'instructions' | 'model'>;
  /** The agent's typed runs and how their answers are checked (live, or from a recording). */
  outputs: OutputChecks;
  /** Called after dispose flushed the log: disposes the agent's children and unregisters it. */
  revoke: () => Promise<void>;
  /** Cancels and disposes the agent's background children (on a cancel, and before its session ends). */
  releaseChildren: () => Promise<void>;
};

/** What of an agent body its actors may reach (the body, agent-body.ts, is the one implementation). */
export type PortSource = {
  agentId: string;
  cwd: string;
  /** The parent's session, for a subagent. */
  parent: string | undefined;
  provider: Provider;
  gate: AgentPermissionGate;
  originKind: AgentOrigin['kind'];
  /** It starts MCP servers of its own (its servers stage has work a dispose can stop). */
  startsServers: boolean;
  publish: Publish;
  offer: AgentOffer;
  skillFolders: SkillFolders;
  requireLog(): SessionLog;
  prepareStep(turn: number, step: number, signal?: AbortSignal): Promise<ToolsUpdate | undefined>;
  runStage: (
    stage: SetupStage,
    signal?: AbortSignal,
  ) => Promise<{ toolNames?: string[]; systemHash?: string }>;
  undoStage(stage: SetupStage): Promise<void>;
  closeServers(): Promise<void>;
  closeSession(): Promise<void>;
  /** An isolated agent's worktree, finished by dispose. */
  parts: { worktree?: { finish(): Promise<void> } | undefined };
};

/** How long dispose waits for tools that were stopped but have not returned yet. */
const lingeringWaitMs = 5_000;

/** What the `sessionStart` hooks are told about how the session began (Claude Code's `source`). */
const sessionSource = { new: 'startup', resume: 'resume', fork: 'fork' } as const;

export function agentPorts(body: PortSource, host: HostServices): AgentPorts {
  const { clock } = host;
  const { agentId, cwd, provider, gate, publish } = body;
  const onError = (error: unknown) => publish({ type: 'runtime.error', agentId, message: messageOf(error) });
  // The session log exists only after the first setup stage; actors reach it when they run.
  const events = () => body.requireLog().events;
  const flush = () => body.requireLog().flush();
  const projection = new ProjectionCache();
  const lingering = new LingeringRuns();
  const { transcripts } = host.hooks;
  const toolCheck: ToolCheckDeps = {
    tools: body.offer.tools,
    permissions: gate,
    ...(host.hooks.preTool === true ? { hooksDecideAsks: true } : {}),
  };
  const hooks: HookDeps = {
    sessionId: agentId,
    cwd,
    consult: host.hooks.consult,
    permissionMode: () => gate.mode,
    ...(transcripts ? { transcriptPath: () => transcripts.write(agentId, cwd, events()) } : {}),
    check: toolCheck,
    lastAnswer: () => lastAnswerText(events()),
    request: () => {
      const { system, tools } = body.offer.projectOptions();
      const names = tools.map((spec) => spec.name);
      return { system, tools: names, model: provider.model, models: Object.keys(host.models) };
    },
    ...(body.parent !== undefined ? { parent: body.parent } : {}),
  };
  return {
    append: (entry) => body.requireLog().append(entry),
    modelCall: {
      agentId,
      provider: routedProvider(provider, host.models, events),
      flush,
      buildRequest: () => {
        const all = events();
        const request = requestChanges(all, projection.project(all, body.offer.projectOptions()));
        // A typed turn's requests ask for its output format, as its `turn.start` recorded it.
        const output = currentOutputFormat(all);
        // One key per session: vendors that cache by key keep the session's prefix in one place.
        return { ...request, cacheKey: agentId, ...(output ? { output } : {}) };
      },
      publish,
      planCompaction: (instructions) =>
        planned(events(), host.compaction, instructions, {
          ...body.offer.projectOptions(),
          cacheKey: agentId,
        }),
      compactionProvider: host.compaction.model ?? provider,
    },
    toolCall: {
      agentId,
      tools: body.offer.tools,
      cwd,
      clock,
      publish,
      writeAhead: flush,
      lingering: lingering.add,
      longOutputs: host.longOutputs,
      skillFolders: body.skillFolders,
    },
    toolCheck,
    approval: { agentId, approver: host.approve },
    preStep: {
      agentId,
      hook: host.preStep,
      // MCP tool lists and the permission mode (a plan accepted, `setPermissionMode`) change the tools.
      prepareStep: (turn, step, signal) => body.prepareStep(turn, step, signal),
      consult: (turn, step, signal) =>
        hooks.consult('preStep')(base(hooks, 'preStep', { turn, step }), { value: {} }, signal),
    },
    hooks,
    outputCheck: { check: (input) => host.outputs.check(input, events()) },
    flush: { flush, onError },
    stage: {
      run: async (stage, signal) => {
        const done = await body.runStage(stage, signal);
        // The agent is set up once it is published: the `sessionStart` hooks are told then, before any turn.
        if (stage !== 'publish') return done;
        const sessionStart = await runSessionStart(hooks, sessionSource[body.originKind], signal);
        return extended(done, { sessionStart });
      },
      // Only MCP servers starting and `sessionStart` hooks (never a subagent's) can be stopped by a dispose.
      abortable: (stage) =>
        stage === 'servers'
          ? body.startsServers
          : stage === 'publish' && host.hooks.sessionStart === true && body.parent === undefined,
    },
    undo: { undo: (stage) => body.undoStage(stage), onError },
    closeServers: { close: () => body.closeServers(), onError },
    finishWorktree: { finish: async () => body.parts.worktree?.finish(), onError },
    releaseChildren: { release: host.releaseChildren, onError },
    revoke: {
      revoke: async () => {
        await lingering.settled(clock, lingeringWaitMs);
        await host.revoke();
        await body.closeSession();
      },
      onError,
    },
  };
}

/** The compaction of the log as it stands, with the host's instructions and those of this request. */
function planned(
  events: readonly LogEvent[],
  config: HostServices['compaction'],
  instructions: string | undefined,
  prefix: { system: string; tools: readonly ToolSpec[]; cacheKey: string },
): PlannedCompaction | undefined {
  const plan = planCompaction(events, config);
  if (plan === undefined) return undefined;
  const all = [config.instructions, instructions].filter((text) => text !== undefined).join('\n');
  return {
    replaces: plan.replaces,
    tokensBefore: lastContextUse(events).usedTokens,
    // The conversation's own prompt and tools: the summary request reads the steps' cached prefix.
    request: {
      ...compactionRequest(events, plan, { ...prefix, ...(all === '' ? {} : { instructions: all }) }),
      cacheKey: prefix.cacheKey,
    },
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

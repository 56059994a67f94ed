// The public API of agentchart, listed explicitly. Providers live on their own subpaths
// (agentchart/anthropic, agentchart/openai); deterministic test pieces on agentchart/testing.
export type { LiveEvent } from './actors/live-event.ts';
export { type Clock, type IdGenerator, SimulatedClock, systemClock } from './core/clock.ts';
export { defaultWithheldVariables } from './core/credentials.ts';
export { AgentStateError } from './errors/agent-state-error.ts';
export { AgentchartError } from './errors/agentchart-error.ts';
export { ConcurrencyError } from './errors/concurrency-error.ts';
export { ConfigError } from './errors/config-error.ts';
export { LogFormatError } from './errors/log-format-error.ts';
export { McpServerError } from './errors/mcp-server-error.ts';
export { ProviderError, type ProviderErrorKind } from './errors/provider-error.ts';
export {
  type DivergenceChange,
  type DivergenceReport,
  ReplayDivergenceError,
} from './errors/replay-divergence-error.ts';
export { StoreUnavailableError } from './errors/store-unavailable-error.ts';
export type {
  CommandHook,
  HookAnswer,
  HookFunction,
  HookInput,
  NamedHook,
} from './hooks/hook-types.ts';
export {
  type InspectorOptions,
  type InspectorServer,
  startInspector,
} from './inspector/server.ts';
export { agentMachine } from './machines/agent.ts';
export type { CompactResult, ContextUsage } from './machines/compaction-types.ts';
export { maxStopRefusals } from './machines/hook-events.ts';
export { stepMachine } from './machines/step.ts';
export { toolBatchMachine } from './machines/tool-batch.ts';
export { turnMachine } from './machines/turn.ts';
export type { McpToolRecord, SkippedTool } from './mcp/mcp-tool.ts';
export type {
  McpHttpServer,
  McpServerConfig,
  McpServers,
  McpStdioServer,
  McpTransportKind,
} from './mcp/server-config.ts';
export type { McpServerState, McpServerStatus } from './mcp/tool-source.ts';
export type { PermissionMode } from './permissions/modes.ts';
export type { PermissionRule } from './permissions/rules.ts';
export type {
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelStopReason,
  OutputFormat,
  Provider,
  ToolSpec,
  Usage,
} from './providers/types.ts';
export { type ActorSnapshot, Agent, type AgentSnapshot } from './runtime/agent-handle.ts';
export type { AgentStream, AgentStreamEvent } from './runtime/agent-stream.ts';
export { ChildAgent, type ChildStatus, type SupervisionView } from './runtime/background/child-agent.ts';
export { AgentSystem, createAgentSystem } from './runtime/create-agent-system.ts';
export type { JobStanding, JobWatch } from './runtime/jobs/job-standings.ts';
export type {
  DependencyResult,
  Job,
  JobOptions,
  JobProgress,
  JobTask,
  JobTaskResult,
} from './runtime/jobs/run-job.ts';
export type {
  AgentSystemOptions,
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  CompactionOptions,
  CreateAgentOptions,
  ForkAgentOptions,
  Hooks,
  Limits,
  ResumeAgentOptions,
  SubagentLimits,
  ToolOutputOptions,
} from './runtime/options.ts';
export type {
  CompletedRun,
  DeniedCall,
  RunError,
  RunErrorKind,
  RunResult,
  RunResultFields,
  StoppedRun,
} from './runtime/turn-result.ts';
export type { AgentWorktreeState, WorktreeResult } from './runtime/worktrees/worktree-life.ts';
export {
  type LeftWorktree,
  listWorktrees,
  pruneWorktrees,
} from './runtime/worktrees/worktree-list.ts';
export type { WorktreeRecord } from './runtime/worktrees/worktree-plan.ts';
export { type CompactionPlan, planCompaction } from './session/compaction-plan.ts';
export { compactionRequest, isCompactionRequest } from './session/compaction-request.ts';
export { assertSameLog, firstDivergence } from './session/compare-logs.ts';
export type { Durability } from './session/file-appender.ts';
export { type FileStore, type FileStoreOptions, fileStore } from './session/file-store.ts';
export { memoryStore } from './session/memory-store.ts';
export { project } from './session/projection.ts';
export type {
  CancelCause,
  LoadedSession,
  LogEvent,
  LogEventType,
  MailKind,
  RestartReason,
  SessionLock,
  SessionStore,
  StopReason,
  SupervisionSpec,
  ToolOutcome,
} from './session/types.ts';
export type { DefinitionMode } from './settings/agent-definition-fields.ts';
export type { AgentDefinition, SkippedAgentDefinition } from './settings/agent-definitions.ts';
export type {
  LoadedSettings,
  NotUsedSetting,
  SettingSource,
  SettingsScope,
} from './settings/settings-types.ts';
export type { SkippedSkill } from './settings/skills.ts';
export type { TelemetryOptions, TracerProviderLike } from './telemetry/telemetry-options.ts';
export {
  type AgentType,
  type BackgroundAgentToolsOptions,
  backgroundAgentTools,
} from './tools/background-agents.ts';
export type {
  BackgroundAgentStatus,
  BackgroundAgentsPort,
  BackgroundSpawnRequest,
  BackgroundWaitOutcome,
} from './tools/background-port.ts';
export type { BashOptions } from './tools/bash.ts';
export { type CodingToolsOptions, codingTools } from './tools/coding-tools.ts';
export type { CommandEnvironmentOptions } from './tools/command-environment.ts';
export {
  type AnyTool,
  defineTool,
  type SubagentRequest,
  type SubagentResult,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from './tools/define-tool.ts';
export {
  defaultMaxOutputRetries,
  type OutputOf,
  type OutputOptions,
  type OutputSchema,
} from './tools/output-schema.ts';
export { type SavedOutputs, savedOutputRoot } from './tools/saved-output.ts';
export type { SkillEntry } from './tools/skill-files.ts';
export type { SupervisionPolicy } from './tools/supervision-option.ts';
export { type TaskToolOptions, taskTool } from './tools/task.ts';

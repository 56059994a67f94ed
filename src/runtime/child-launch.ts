// How a child agent is launched, for the `task` tool and for background agents alike: permissions no wider
// than its parent's, at most the parent's tools, the subagent limits, and the depth it may not pass.
import { ConfigError } from '../errors/config-error.ts';
import type { PermissionSettings } from '../permissions/gate.ts';
import { stricterMode } from '../permissions/modes.ts';
import type { Provider } from '../providers/types.ts';
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type OutputSpec, type SupervisionSpec } from '../session/types.ts';
import type { AgentDefinition } from '../settings/agent-definitions.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import type { JsonSchemaObject } from '../tools/tool-input.ts';
import {
  definitionModel,
  definitionModeUnder,
  definitionNamed,
  definitionTools,
} from './definition-launch.ts';
import type { CreateAgentOptions, Limits, SubagentLimits } from './options.ts';

/** How a child agent is launched: its parent, its depth, its narrowed permissions and its limits. */
export type ChildSpec = { parent: string; depth: number; permissions: PermissionSettings; limits: Limits };

/** What the tree knows about one live agent. */
export type TreeMember = {
  /** 0 for an agent the host created, resumed or forked; parent depth + 1 for a subagent. */
  depth: number;
  /** The agent's tools as given (not wrapped), so a child can be handed a subset of them. */
  tools: readonly AnyTool[];
  /** The names of the tools the agent is offered (after its permission mode). */
  toolNames: readonly string[];
  provider: Provider;
  /** The agent's permission settings, with the mode it decides calls in now (it changes while it lives). */
  permissions: PermissionSettings;
  /** The agent that started this one, for a subagent. */
  parent?: string;
  log: SessionLog;
  /** The kinds of subagent it may start by `agent_type` (none for a subagent). */
  agentDefinitions: readonly AgentDefinition[];
  /** The system's models by name (none in a replay: the recorded model answers): a definition's `model`. */
  models: Readonly<Record<string, Provider>>;
};

/**
 * What a child is asked to be: a subset of its parent's tools (by name), its own system prompt, the agent
 * definition it is made from (`agent_type`), which narrows further, and whether it works in a worktree.
 */
export type ChildRequest = {
  tools?: readonly string[] | undefined;
  instructions?: string | undefined;
  agentType?: string | undefined;
  /** `'worktree'`: the child works in a git worktree of its own, not in its parent's workspace. */
  isolation?: 'worktree' | undefined;
};

/**
 * The options and spec a child of `parent` is launched with; for a definition's child, the tools it named
 * that the parent lacks (not granted) and the schema its answer must match.
 */
export type ChildLaunch = {
  options: CreateAgentOptions;
  spec: ChildSpec;
  definition?: { notGranted: string[]; output?: JsonSchemaObject };
};

/**
 * Prepares a child of `parentId`; throws a `ConfigError` the model reads when the parent is at the depth
 * limit (unless `rejoin`: a resumed call continues a child that exists) or asks for a tool it lacks.
 */
export function childLaunch(
  parentId: string,
  parent: TreeMember,
  request: ChildRequest,
  limits: {
    system: Limits;
    subagents: SubagentLimits;
    maxDepth: number;
    maxSteps: number;
    rejoin?: boolean;
  },
): ChildLaunch {
  if (!limits.rejoin && parent.depth >= limits.maxDepth) {
    throw new ConfigError(
      `subagent depth limit reached: this agent is at depth ${parent.depth} and subagents may nest at ` +
        `most ${limits.maxDepth} deep. Do this work yourself instead of delegating it.`,
    );
  }
  const definition =
    request.agentType === undefined ? undefined : definitionNamed(parent.agentDefinitions, request.agentType);
  const given = childTools(parent, request.tools);
  const narrowed = definition ? definitionTools(given, parent.toolNames, definition) : undefined;
  const instructions = request.instructions ?? (definition?.instructions || undefined);
  // A definition's `isolation: worktree` applies unless the host's agent type said otherwise.
  const isolation = request.isolation ?? (definition?.isolation === 'worktree' ? 'worktree' : undefined);
  const options = {
    tools: narrowed?.tools ?? given,
    model: definitionModel(parent.provider, definition, parent.models),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(isolation !== undefined ? { isolation } : {}),
  };
  const { permissions } = parent;
  const mode = definitionModeUnder(
    stricterMode(permissions.mode, limits.subagents.permissionMode ?? permissions.mode),
    definition,
  );
  // `dontAsk`: nobody is asked, so a call that would ask is denied.
  const canAsk = definition?.permissionMode === 'dont-ask' ? false : permissions.canAsk;
  const maxSteps = Math.min(limits.maxSteps, definition?.maxSteps ?? limits.maxSteps);
  const spec: ChildSpec = {
    parent: parentId,
    depth: parent.depth + 1,
    // Same rules, a mode no looser, and the parent's host to ask (none when headless: ask means deny); the
    // parent's skill folders stay read-only to it.
    permissions: {
      mode,
      allow: permissions.allow,
      ...(permissions.ask ? { ask: permissions.ask } : {}),
      deny: permissions.deny,
      canAsk,
      ...(permissions.readOnlyFolders ? { readOnlyFolders: permissions.readOnlyFolders } : {}),
      ...(permissions.bypassDisabled ? { bypassDisabled: true } : {}),
    },
    limits: { ...limits.system, maxSteps },
  };
  if (!narrowed) return { options, spec };
  const output = definition?.output;
  return { options, spec, definition: { notGranted: narrowed.notGranted, ...(output ? { output } : {}) } };
}

function childTools(parent: TreeMember, names: readonly string[] | undefined): AnyTool[] {
  const offered = parent.tools.filter((tool) => parent.toolNames.includes(tool.name));
  if (names === undefined) return offered;
  const unknown = names.filter((name) => !parent.toolNames.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `a subagent can only get tools this agent has; not available: ${unknown.join(', ')} ` +
        `(available: ${parent.toolNames.join(', ') || 'none'})`,
    );
  }
  return offered.filter((tool) => names.includes(tool.name));
}

/**
 * Writes `agent.spawned` at the turn and step of the call that started the child (a background child's
 * says so, `wait: false` when its parent's turn need not hear from it, and the output of a typed one).
 */
export function logSpawned(
  log: SessionLog,
  callId: string,
  childSessionId: string,
  background?: { wait: boolean; output?: OutputSpec; supervision?: SupervisionSpec },
): void {
  const extra = background
    ? {
        background: true,
        ...(background.wait ? {} : { wait: false }),
        ...(background.output ? { output: background.output } : {}),
        ...(background.supervision ? { supervision: background.supervision } : {}),
      }
    : {};
  log.append({
    type: 'agent.spawned',
    ...callPosition(log, callId),
    data: { childSessionId, callId, ...extra },
  });
}

/** The turn and step of tool call `callId` in `log` (where what the call writes belongs). */
export function callPosition(log: SessionLog, callId: string): { turn?: number; step?: number } {
  const events = log.events;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (isEvent(event, 'tool.call') && event.data.callId === callId) {
      return {
        ...(event.turn !== undefined ? { turn: event.turn } : {}),
        ...(event.step !== undefined ? { step: event.step } : {}),
      };
    }
  }
  return {};
}

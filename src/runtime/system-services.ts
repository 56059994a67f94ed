// What every agent of one system shares, built once from the system's parsed options: hooks, the tree of
// task subagents, the background agents with their mail, the registry, saved outputs, the workspace
// check and recorded tool results. Launching and resuming agents stays the system's: given as callbacks.
import { RecordedResults } from '../recorded/recorded-results.ts';
import type { Launch, LaunchOptions, SystemServices } from './agent-assembly.ts';
import type { Agent } from './agent-handle.ts';
import { BackgroundAgents } from './background/background-agents.ts';
import { toolPort } from './background/tool-port.ts';
import { hookConsultation } from './hook-consultation.ts';
import type { SystemConfig } from './options-schema.ts';
import { loadSession } from './resume/stored-session.ts';
import { SavedOutputFolders } from './saved-outputs.ts';
import { AgentTree } from './subagents.ts';
import { WorkspaceCheck } from './workspace-check.ts';

/** How the services start the system's agents: a new one, or one resumed from its session. */
export type SystemLaunchers = {
  launch(launch: Launch): Promise<Agent>;
  resumeSession(sessionId: string, options: LaunchOptions): Promise<Agent>;
};

/** The services of one system; ids of children and mail come from a replay's recording when there is one. */
export function systemServices(config: SystemConfig, launchers: SystemLaunchers): SystemServices {
  const { subagentReplay: replay, clock, store } = config;
  const tree = new AgentTree({
    childId: (parentId, callId) => replay?.childSessionId(parentId, callId) ?? config.nextId('task'),
    ...(replay ? { recordedAt: replay.recordedAt.bind(replay) } : {}),
    limits: config.limits,
    subagents: config.subagents,
    launchChild: (id, childOptions, child) =>
      launchers.launch({ agentId: id, origin: { kind: 'new' }, options: { ...childOptions, child } }),
    resumeChild: (id, childOptions, child) => launchers.resumeSession(id, { ...childOptions, child }),
  });
  const background = new BackgroundAgents({
    tree,
    childId: (parentId, callId) => replay?.childSessionId(parentId, callId) ?? config.nextId('spawn_agent'),
    messageId: (from) => replay?.messageId?.(from) ?? config.nextId('send_message'),
    ...(replay?.mailAt ? { mailAt: replay.mailAt.bind(replay) } : {}),
    launchChild: (id, childOptions, child, signal) =>
      launchers.launch({ agentId: id, origin: { kind: 'new' }, options: { ...childOptions, child }, signal }),
    resumeChild: (id, childOptions, child) => launchers.resumeSession(id, { ...childOptions, child }),
    loadLog: (id) => loadSession(store, id, 'resume').catch(() => undefined),
    clock,
  });
  tree.tools.offerBackground((call) => toolPort(background, clock, call));
  return {
    config,
    hooks: hookConsultation(config),
    tree,
    background,
    registry: new Map(),
    savedOutputs: new SavedOutputFolders(store),
    workspaces: new WorkspaceCheck(),
    toolResults: config.toolResults ? new RecordedResults(config.toolResults) : undefined,
  };
}

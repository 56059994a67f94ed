// Runs an agent over the coding tools in a fresh workspace whose settings file (`team.json`) holds Claude
// Code hooks, for the tests that feed agentchart real published hook scripts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codingTools, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';

/** The corpus of real Claude Code files (with PROVENANCE.md), read in place. */
export const corpus = fileURLToPath(new URL('../../docs/claude-code/corpus/', import.meta.url));
/** Real files copied as test data (test/fixtures/claude-code/PROVENANCE.md). */
export const fixtures = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url));

export type Steps = Parameters<typeof scripted>[0];

export async function makeWorkspace(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'agentchart-claude-corpus-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** One turn (`prompt`) of an agent whose settings are `settings`; the system is disposed before it returns. */
export async function runTurn(
  workspace: string,
  settings: unknown,
  steps: Steps,
  options: Partial<AgentSystemOptions> & { prompt?: string } = {},
) {
  await writeFile(join(workspace, 'team.json'), JSON.stringify(settings));
  const model = scripted(steps);
  const { prompt = 'go', ...rest } = options;
  const system = createAgentSystem({
    model,
    tools: codingTools(),
    cwd: workspace,
    projectInstructions: false,
    permissionMode: 'bypass',
    settings: 'team.json',
    ...rest,
  });
  try {
    const agent = await system.createAgent({ id: 'a' });
    const result = await agent.run(prompt);
    return { result, log: agent.log(), requests: model.requests };
  } finally {
    await system.dispose();
  }
}

/** The settings of a Claude Code plugin's `hooks/hooks.json`, with `${CLAUDE_PLUGIN_ROOT}` filled in. */
export function pluginSettings(hooksJson: string, pluginRoot: string): unknown {
  const plugin = JSON.parse(hooksJson) as { hooks: unknown };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, filled in as it fills it.
  return JSON.parse(JSON.stringify({ hooks: plugin.hooks }).replaceAll('${CLAUDE_PLUGIN_ROOT}', pluginRoot));
}

export const decided = (log: readonly LogEvent[]) =>
  log
    .filter((event) => event.type === 'hook.decided')
    .map((event) => {
      const data = event.data as { point: string; outcome: string; callId?: string; reason?: string };
      return [data.point, data.callId, data.outcome, data.reason];
    });

export const toolResults = (log: readonly LogEvent[]) =>
  log
    .filter((event) => event.type === 'tool.result')
    .map((event) => [event.data.callId, event.data.outcome, event.data.content]);

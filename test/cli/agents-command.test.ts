// `agentchart agents` lists the agent definitions `run` would offer (the workspace's folders, then the
// user's from HOME as the CLI was given it) and every file skipped with why; `run` puts the catalogue in
// the system prompt and a `task` call with `agent_type` runs the definition.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultInstructions } from '../../src/runtime/options.ts';
import { readLog } from '../../src/session/log-text.ts';
import { copyRealDefinition, definitionText, writeDefinition } from '../support/agent-definition-kit.ts';
import { sessionLogOf, useCliWorld, wireToolCall } from '../support/cli-world.ts';
import { runCli } from './cli-harness.ts';

describe('agentchart agents', () => {
  const world = useCliWorld({ prefix: 'agentchart-agents-command', realWorkspace: true });

  it('lists the definitions found, the workspace first, and each file skipped with the reason', async () => {
    const { home, workspace } = world;
    const reviewer = await copyRealDefinition(join(workspace, '.claude', 'agents'), 'code-reviewer.md');
    const security = await copyRealDefinition(join(home, '.claude', 'agents'), 'security-expert.md');
    const shadowed = await writeDefinition(
      join(home, '.agentchart', 'agents'),
      'code-reviewer.md',
      definitionText({ name: 'code-reviewer', description: 'Mine.' }, 'Body.\n'),
    );
    const typo = await writeDefinition(
      join(workspace, '.agentchart', 'agents'),
      'typo.md',
      definitionText({ name: 'typo', description: 'd', tools: 'Reed' }, ''),
    );
    const text = await runCli(['agents', '--cwd', workspace], { env: { HOME: home } });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')).toEqual([
      `Agent definitions for ${workspace} (a name found first wins):`,
      '  code-reviewer: Reviews code changes for correctness, regressions, integration risk, and missing verification.',
      '    tools: read_file, glob, grep, bash',
      '    model: sonnet',
      `    file: ${reviewer}`,
      '    note: model "sonnet" is not one of the system\'s models: the parent\'s model is used',
      '  security-expert: Elite security analysis - finds vulnerabilities, validates security patterns, and ensures defense in depth',
      '    tools: glob, grep, read_file',
      '    model: sonnet',
      `    file: ${security}`,
      '    note: tools: WebFetch is left out (agentchart has no such tool)',
      '    note: tools: TodoWrite is left out (agentchart has no such tool)',
      '    note: tools: WebSearch is left out (agentchart has no such tool)',
      '    note: model "sonnet" is not one of the system\'s models: the parent\'s model is used',
      `  skipped: ${typo}: tools names a tool agentchart does not know: Reed (did you mean Read?)`,
      `  skipped: ${shadowed}: an agent definition named "code-reviewer" was found first`,
      '',
    ]);
    const json = JSON.parse(
      (await runCli(['agents', '--cwd', workspace, '--json'], { env: { HOME: home } })).stdout,
    );
    expect(json.definitions.map((definition: { name: string }) => definition.name)).toEqual([
      'code-reviewer',
      'security-expert',
    ]);
    expect(json.skipped).toHaveLength(2);
  });

  it('says where it looked when there are none', async () => {
    const { home, workspace } = world;
    const text = await runCli(['agents', '--cwd', workspace], { env: { HOME: home } });
    expect(text.stdout.split('\n')).toEqual([
      `No agent definitions for ${workspace}. Looked in:`,
      `  ${join(workspace, '.agentchart', 'agents')}`,
      `  ${join(workspace, '.claude', 'agents')}`,
      `  ${join(home, '.agentchart', 'agents')}`,
      `  ${join(home, '.claude', 'agents')}`,
      '',
    ]);
  });

  it('run offers them: the catalogue in the system prompt, and task with agent_type runs one', async () => {
    const { server, workspace, env } = world;
    await copyRealDefinition(join(workspace, '.claude', 'agents'), 'code-reviewer.md');
    server.reply({
      turn: {
        toolCalls: [
          wireToolCall('t1', 'task', {
            description: 'review',
            prompt: 'review it',
            agent_type: 'code-reviewer',
          }),
        ],
      },
    });
    server.reply({ turn: { text: ['No findings.'] } });
    server.reply({ turn: { text: ['Reviewed.'] } });
    const run = await runCli(['run', 'review please', '--yes', '--cwd', workspace], { env });
    expect(run.code).toBe(0);
    const systemOf = (index: number) =>
      (server.requests[index]!.body as { messages: { content: string }[] }).messages[0]!.content;
    // The default prompt, the catalogue, then the environment block.
    expect(systemOf(0).split('\n\n# Environment\n')[0]).toBe(
      `${defaultInstructions}\n\n# Agent types\nWhen a task matches one of these descriptions, delegate it by ` +
        'giving its name as `agent_type` to the task tool (or spawn_agent): the agent starts with its own ' +
        'instructions and tools.\n' +
        '- code-reviewer: Reviews code changes for correctness, regressions, integration risk, and missing verification.',
    );
    expect(systemOf(1).startsWith('You are a focused code reviewer for the 1Code desktop app.')).toBe(true);
    const log = await readLog(sessionLogOf(run.stdout));
    const config = log[0]!.data.config as { agentDefinitions: { name: string }[] };
    expect(config.agentDefinitions.map((definition) => definition.name)).toEqual(['code-reviewer']);
  });
});

// The CLI reads the user's instruction files from HOME as it was given, `run` sends them to the model (a
// local wire server) and logs which were read, and `agentchart config` lists them.
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultInstructions } from '../../src/runtime/options.ts';
import { useCliWorld } from '../support/cli-world.ts';
import type { OpenAIChatServer } from '../support/wire/openai-chat-server.ts';
import { copyFixture, instructionsIntro as intro } from '../tools/instruction-fixtures.ts';
import { writeFiles } from '../tools/workspace-fixture.ts';
import { runCli } from './cli-harness.ts';

describe('instruction files in the CLI', () => {
  let server: OpenAIChatServer;
  let base: string;
  let home: string;
  let workspace: string;
  let env: Record<string, string>;
  // HOME, the repository and a file outside both share one folder, so imports can reach out of each.
  useCliWorld({ prefix: 'agentchart-instructions-cli', home: 'unset', realWorkspace: true }, (world) => {
    server = world.server;
    base = world.workspace;
    home = path.join(base, 'home');
    env = { ...world.env, HOME: home };
  });

  beforeEach(async () => {
    const repo = await copyFixture('biome', base);
    workspace = path.join(repo, 'crates', 'biome_html_formatter');
    await writeFiles(home, { '.claude/CLAUDE.md': 'Answer briefly.' });
    await writeFiles(workspace, { 'CLAUDE.local.md': 'Mine: @~/.claude/mine.md and @../../../outside.md' });
    await writeFiles(home, { '.claude/mine.md': 'Use the fast tests.' });
    await writeFiles(base, { 'outside.md': 'Not for the model.' });
  });

  const outside = "it is outside the repository and the user's ~/.claude and ~/.agentchart";
  const files = [
    { file: '~/.claude/CLAUDE.md' },
    { file: '../../CLAUDE.md' },
    { file: '../../CONTRIBUTING.md', importedBy: '../../CLAUDE.md' },
    { file: 'CLAUDE.local.md' },
    { file: '~/.claude/mine.md', importedBy: 'CLAUDE.local.md' },
  ];

  it('run sends the files to the model and logs which were read', async () => {
    server.reply({ turn: { text: ['Done.'] } });
    const run = await runCli(['run', 'hello', '--cwd', workspace, '--json'], { env });
    expect(run.code).toBe(0);
    const body = server.requests[0]!.body as { messages: { role: string; content: string }[] };
    const system = body.messages[0]!.content.split('\n\n# Environment\n')[0]!;
    expect(
      system.startsWith(
        `${defaultInstructions}\n\n${intro}\n\n## ~/.claude/CLAUDE.md\n\nAnswer briefly.\n\n## ../../CLAUDE.md\n\n`,
      ),
    ).toBe(true);
    expect(
      system.endsWith(
        '## CLAUDE.local.md\n\nMine: @~/.claude/mine.md and @../../../outside.md\n\n' +
          `[@../../../outside.md was not read: ${outside}.]\n\n` +
          '## ~/.claude/mine.md (imported by CLAUDE.local.md)\n\nUse the fast tests.\n',
      ),
    ).toBe(true);
    const start = run.stdout
      .split('\n')
      .filter((text) => text.includes('"session.start"'))
      .map((text) => JSON.parse(text).event.data.config);
    expect(start.map((config) => [config.instructionFiles, config.instructionsSkipped])).toEqual([
      [files, [{ file: 'CLAUDE.local.md', import: '../../../outside.md', problem: outside }]],
    ]);
  });

  it('agentchart config lists the files in the order the model reads them, and what was not read', async () => {
    const text = await runCli(['config', '--cwd', workspace], { env });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      `Instruction files for ${workspace} (in the order the model reads them):`,
      '  ~/.claude/CLAUDE.md',
      '  ../../CLAUDE.md',
      '  ../../CONTRIBUTING.md  (imported by ../../CLAUDE.md)',
      '  CLAUDE.local.md',
      '  ~/.claude/mine.md  (imported by CLAUDE.local.md)',
      `  not read: @../../../outside.md in CLAUDE.local.md: ${outside}`,
      '  stays text: @arendjr](https://github.com/arendjr) in ../../CONTRIBUTING.md (no such file)',
    ]);
    // The 23 maintainers' handles of biome's CONTRIBUTING.md, then the settings as before.
    expect(lines[29]).toBe(
      '  stays text: @ah-yu](https://github.com/ah-yu) in ../../CONTRIBUTING.md (no such file)',
    );
    expect(lines.slice(30, 32)).toEqual(['', `Settings files for ${workspace} (later files win):`]);
    const json = JSON.parse((await runCli(['config', '--cwd', workspace, '--json'], { env })).stdout);
    expect([json.instructions.files, json.instructions.skipped, json.instructions.unresolved.length]).toEqual(
      [files, [{ file: 'CLAUDE.local.md', import: '../../../outside.md', problem: outside }], 23],
    );
  });
});

// The package as a user installs it: `npm pack`, then `npm install <tarball>` into an empty project (from
// the npm registry, as a user's install would). The command runs from dist/ with no TypeScript loader in
// the tree, the model SDKs and the Redis and PostgreSQL clients are optional (a missing one is named with
// its install command), and a project
// on zod 3 installs it and defines tools with zod 3 schemas.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, npm, run } from '../../scripts/packed-package.ts';

let work: string;
let project: string;

beforeAll(async () => {
  const packed = await installPacked('agentchart-packed-', ['zod@3.25.76']);
  ({ work, project } = packed);
  expect(packed.install.code, packed.install.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the packed package, installed into an empty project', () => {
  it('has no TypeScript loader, bundler or model SDK in the installed tree', async () => {
    const { stdout } = await run(npm, ['ls', '--all', '--parseable'], { cwd: project });
    const names = stdout
      .split('\n')
      .filter(Boolean)
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(names).toContain('agentchart');
    for (const heavy of ['tsx', 'esbuild', 'typescript', '@anthropic-ai/sdk', 'openai', '@opentelemetry/api'])
      expect(names, heavy).not.toContain(heavy);
    const manifest = JSON.parse(
      await readFile(join(project, 'node_modules/agentchart/package.json'), 'utf8'),
    );
    expect(manifest.bin).toEqual({ agentchart: 'bin/agentchart.js' });
  });

  it('runs `npx agentchart --help` from dist/', async () => {
    const help = await run(npm, ['exec', '--', 'agentchart', '--help'], { cwd: project });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agentchart \[options\] \[command\]/);
  });

  // Without the optional @opentelemetry/api (not in the tree, see above) the agent runs untraced, no error.
  it('runs an agent with a zod 3 tool and a JSON Schema tool, imported by package name', async () => {
    const program = [
      "import { createAgentSystem, defineTool } from 'agentchart';",
      "import { scripted } from 'agentchart/testing';",
      "import { z } from 'zod';",
      "const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };",
      "const add = defineTool({ name: 'add', description: 'Adds.', access: 'none', input: z.object({ a: z.number(), b: z.number() }), jsonSchema: schema, run: async ({ a, b }) => String(a + b) });",
      "const twice = defineTool({ name: 'twice', description: 'Doubles.', access: 'none', input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, run: async ({ n }) => String(n * 2) });",
      "const model = scripted([{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }, { name: 'twice', input: { n: 'x' } }] }, (request) => ({ text: request.messages.slice(-2).map((message) => message.content).join(' | ') })]);",
      "const system = createAgentSystem({ model, tools: [add, twice], permissionMode: 'bypass', projectInstructions: false });",
      'const agent = await system.createAgent();',
      "const result = await agent.run('go');",
      'await system.dispose();',
      'console.log(JSON.stringify({ zod: z.object({}).safeParse !== undefined, reason: result.reason, text: result.text }));',
    ].join('\n');
    await writeFile(join(project, 'program.mjs'), program);
    const ran = await run(process.execPath, ['program.mjs'], { cwd: project });
    expect(ran.stderr).toBe('');
    const output = JSON.parse(ran.stdout) as { reason: string; text: string };
    expect(output.reason).toBe('completed');
    expect(output.text.split(' | ')[0]).toBe('5');
    expect(output.text.split(' | ')[1]).toMatch(/^Invalid arguments for twice:\n✖ .*\n {2}→ at n$/);
    const zodVersion = JSON.parse(
      await readFile(join(project, 'node_modules/zod/package.json'), 'utf8'),
    ).version;
    expect(zodVersion).toBe('3.25.76');
  });

  it('names the missing model SDK and how to install it, in the library and on the command line', async () => {
    await writeFile(join(project, 'provider.mjs'), "await import('agentchart/anthropic');");
    const imported = await run(process.execPath, ['provider.mjs'], { cwd: project });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      'agentchart/anthropic needs the package @anthropic-ai/sdk, which is not installed; install it with: npm install @anthropic-ai/sdk@"^1.14.0"',
    );
    const env = { ...process.env, OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: '' };
    const cli = await run(npm, ['exec', '--', 'agentchart', 'run', 'hi'], { cwd: project, env });
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim()).toBe(
      'agentchart: agentchart/openai needs the package openai, which is not installed; install it with: npm install openai@"^6.49.0 || ^7.0.0" [config]',
    );
  });

  it('names the missing Redis and PostgreSQL clients of agentchart/bullmq and agentchart/postgres', async () => {
    const errorOf = async (subpath: string) => {
      await writeFile(
        join(project, 'peer.mjs'),
        `try { await import('${subpath}'); console.log('loaded'); } catch (e) { console.log(e.name, e.code, e.message); }`,
      );
      return (await run(process.execPath, ['peer.mjs'], { cwd: project })).stdout.trim();
    };
    expect(await errorOf('agentchart/bullmq')).toBe(
      'ConfigError config agentchart/bullmq needs the packages bullmq and ioredis, which are not installed; ' +
        'install them with: npm install bullmq@"^6.7.0" ioredis@"^6.0.0"',
    );
    expect(await errorOf('agentchart/postgres')).toBe(
      'ConfigError config agentchart/postgres needs the package pg, which is not installed; ' +
        'install it with: npm install pg@"^8.23.1"',
    );
    // `migrate` needs only pg: it is named alone.
    const cli = await run(
      npm,
      ['exec', '--', 'agentchart', 'migrate', '--postgres', 'postgres://127.0.0.1:9/x'],
      {
        cwd: project,
      },
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim()).toBe(
      'agentchart: agentchart/postgres needs the package pg, which is not installed; install it with: npm install pg@"^8.23.1" [config]',
    );
  });

  it('runs the scripted demo', async () => {
    const demo = await run(npm, ['exec', '--', 'agentchart', 'demo'], {
      cwd: project,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain('completed');
  });
});

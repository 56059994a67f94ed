// The published package runs on plain Node: the build emits JavaScript and declarations for every
// subpath in package.json "exports", and a program importing them by package name runs an agent.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
type ExportTarget = { types: string; default: string };
let work: string;

beforeAll(async () => {
  // A package folder of our own: package.json and README copied, dist built into it, node_modules linked.
  work = await mkdtemp(join(tmpdir(), 'agentchart-package-'));
  const pkg = join(work, 'node_modules', 'agentchart');
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, 'package.json'), await readFile(join(root, 'package.json')));
  await symlink(join(root, 'node_modules'), join(pkg, 'node_modules'));
  // The program brings its own zod, as a user's project would.
  await symlink(join(root, 'node_modules', 'zod'), join(work, 'node_modules', 'zod'));
  await run(
    process.execPath,
    [
      join(root, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      join(pkg, 'dist'),
    ],
    {
      cwd: root,
    },
  );
}, 600_000); // a full tsc build: minutes on a loaded 2-core machine

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the built package', () => {
  it('has JavaScript and declarations for every export', async () => {
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, ExportTarget | string>;
    };
    const targets = Object.values(manifest.exports).filter(
      (target): target is ExportTarget => typeof target !== 'string',
    );
    expect(targets).toHaveLength(7);
    for (const target of targets) {
      for (const file of [target.types, target.default]) {
        const info = await stat(join(work, 'node_modules', 'agentchart', file));
        expect(info.isFile(), file).toBe(true);
      }
    }
  });

  it('runs an agent in plain Node, imported by package name', async () => {
    const program = join(work, 'program.mjs');
    await writeFile(
      program,
      [
        "import { createAgentSystem, defineTool } from 'agentchart';",
        "import { scripted } from 'agentchart/testing';",
        "import { anthropic } from 'agentchart/anthropic';",
        "import { openai } from 'agentchart/openai';",
        // The AI SDK subpath loads nothing of the AI SDK: the model object brings its own code.
        "import { aiSdk } from 'agentchart/ai-sdk';",
        // The server subpaths load pg, bullmq and ioredis (optional peers, here from the dev install).
        "import { pgStore } from 'agentchart/postgres';",
        "import { enqueueJob, startWorker } from 'agentchart/bullmq';",
        "import { z } from 'zod';",
        "const add = defineTool({ name: 'add', description: 'Adds.', access: 'none', input: z.object({ a: z.number(), b: z.number() }), run: async ({ a, b }) => String(a + b) });",
        "const model = scripted([{ toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] }, (request) => ({ text: 'sum is ' + request.messages.at(-1).content })]);",
        "const system = createAgentSystem({ model, tools: [add], permissionMode: 'bypass', projectInstructions: false });",
        'const agent = await system.createAgent();',
        "const result = await agent.run('add 2 and 3');",
        'await system.dispose();',
        'console.log(JSON.stringify({ reason: result.reason, text: result.text, providers: [typeof anthropic, typeof openai, typeof aiSdk, typeof pgStore, typeof enqueueJob, typeof startWorker] }));',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [program], { cwd: work });
    expect(JSON.parse(stdout)).toEqual({
      reason: 'completed',
      text: 'sum is 5',
      providers: ['function', 'function', 'function', 'function', 'function', 'function'],
    });
  });
});

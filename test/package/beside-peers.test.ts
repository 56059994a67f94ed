// agentchart installs beside what a project already has (issue 29): the newest openai, the OpenAI Agents
// SDK (which brings openai 7 and zod 4 itself), and the AI SDK. `npm install` must resolve without
// ERESOLVE, and `agentchart/openai` then runs on the project's openai 7, talking to a local wire server.
// Beside the OpenTelemetry API and SDK, the built package finds the optional `@opentelemetry/api` peer and
// traces through the provider the project registered.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, npm, run } from '../../scripts/packed-package.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

// Pinned, so the test installs the same tree every time (from the registry, as a user's install would).
const peers = [
  'openai@7.60.0',
  '@openai/agents@0.20.0',
  'ai@7.0.173',
  '@ai-sdk/openai@4.0.126',
  'zod@4.6.7',
  '@opentelemetry/api@1.10.0',
  '@opentelemetry/sdk-trace@3.1.1',
];

let work: string;
let project: string;
let install: { code: number; stdout: string; stderr: string };
let server: OpenAIChatServer;

beforeAll(async () => {
  ({ work, project, install } = await installPacked('agentchart-beside-', peers));
  server = await startOpenAIChatServer();
}, 300_000);

afterAll(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('agentchart installed beside openai 7, @openai/agents and the AI SDK', () => {
  it('installs with no conflict, agentchart and the Agents SDK sharing one openai', async () => {
    expect(install.stderr).not.toContain('ERESOLVE');
    expect(install.code, install.stderr).toBe(0);
    const { stdout } = await run(npm, ['ls', 'openai', '--all', '--parseable'], { cwd: project });
    const copies = stdout.split('\n').filter((path) => path.endsWith('/node_modules/openai'));
    expect(copies).toEqual([join(project, 'node_modules/openai')]);
    const version = JSON.parse(
      await readFile(join(project, 'node_modules/openai/package.json'), 'utf8'),
    ).version;
    expect(version).toBe('7.60.0');
  });

  it('runs an agent on agentchart/openai with openai 7, next to the other SDKs', async () => {
    server.reply({ turn: { text: ['Hello', ' from openai 7.'] } });
    const program = [
      "import { createAgentSystem } from 'agentchart';",
      "import { openai } from 'agentchart/openai';",
      "import { Agent } from '@openai/agents';",
      "import { generateText } from 'ai';",
      "import { VERSION } from 'openai/version';",
      "const model = openai({ model: 'gpt-test', apiKey: 'test-key', baseURL: process.env.WIRE_URL });",
      'const system = createAgentSystem({ model, projectInstructions: false });',
      'const agent = await system.createAgent();',
      "const result = await agent.run('Say hello');",
      'await system.dispose();',
      'console.log(JSON.stringify({ openai: VERSION, reason: result.reason, text: result.text, others: [typeof Agent, typeof generateText] }));',
    ].join('\n');
    await writeFile(join(project, 'program.mjs'), program);
    const env = { ...process.env, WIRE_URL: `${server.url}/v1` };
    const ran = await run(process.execPath, ['program.mjs'], { cwd: project, env });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      openai: '7.60.0',
      reason: 'completed',
      text: 'Hello from openai 7.',
      others: ['function', 'function'],
    });
    expect(server.requests).toHaveLength(1);
  });

  it('traces through the OpenTelemetry provider the project registered', async () => {
    server.reply({ turn: { text: ['Traced.'] } });
    const program = [
      "import { trace } from '@opentelemetry/api';",
      "import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';",
      "import { createAgentSystem } from 'agentchart';",
      "import { openai } from 'agentchart/openai';",
      'const exporter = new InMemorySpanExporter();',
      'trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));',
      "const model = openai({ model: 'gpt-test', apiKey: 'test-key', baseURL: process.env.WIRE_URL });",
      'const system = createAgentSystem({ model, projectInstructions: false });',
      'const agent = await system.createAgent();',
      "const result = await agent.run('Say hello');",
      'await system.dispose();',
      'console.log(JSON.stringify({ reason: result.reason, spans: exporter.getFinishedSpans().map((span) => span.name).sort() }));',
    ].join('\n');
    await writeFile(join(project, 'traced.mjs'), program);
    const env = { ...process.env, WIRE_URL: `${server.url}/v1` };
    const ran = await run(process.execPath, ['traced.mjs'], { cwd: project, env });
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      reason: 'completed',
      spans: ['chat gpt-test', 'invoke_agent agentchart', 'step', 'turn'],
    });
  });
});

import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyTool, ConfigError, codingTools, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const secrets = {
  OPENAI_API_KEY: 'sk-test-openai-5f2c9e',
  GITHUB_TOKEN: 'ghp_test_7d1a0b',
  AWS_SECRET_ACCESS_KEY: 'aws-test-secret-93e1',
  AGENTCHART_TEST_PLAIN: 'visible',
};
const echo =
  'echo "openai=$OPENAI_API_KEY github=$GITHUB_TOKEN aws=$AWS_SECRET_ACCESS_KEY plain=$AGENTCHART_TEST_PLAIN"';

let workspace: string;
const saved: Record<string, string | undefined> = {};
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'agentchart-secrets-')));
  for (const [name, value] of Object.entries(secrets)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterEach(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(workspace, { recursive: true, force: true });
});

/** An agent runs the echo through bash; returns what the tool answered and the whole log as text. */
async function echoThroughAgent(tools: AnyTool[]): Promise<{ result: unknown; log: string }> {
  const system = createAgentSystem({
    model: scripted([
      { toolCalls: [{ id: 'echo', name: 'bash', input: { command: echo } }] },
      { text: 'Done.' },
    ]),
    tools,
    cwd: workspace,
    permissionMode: 'bypass',
    projectInstructions: false,
  });
  const agent = await system.createAgent({ id: 'echoer' });
  await agent.run('Print the keys.');
  const result = agent.log().find((event) => event.type === 'tool.result')?.data.content;
  const log = JSON.stringify(agent.log());
  await system.dispose();
  return { result, log };
}

const leaked = (log: string) =>
  Object.entries(secrets)
    .filter(([, value]) => log.includes(value))
    .map(([name]) => name);

describe('bash and the host environment', () => {
  it('withholds credentials by default, so the log never holds them', async () => {
    const { result, log } = await echoThroughAgent(codingTools());
    expect(result).toBe('openai= github= aws= plain=visible\n[exit code 0]');
    expect(leaked(log)).toEqual(['AGENTCHART_TEST_PLAIN']);
  });

  it('passes a credential the host allows, and withholds more when asked', async () => {
    const allowed = await echoThroughAgent(codingTools({ bash: { env: { allow: ['OPENAI_API_KEY'] } } }));
    expect(allowed.result).toBe(`openai=${secrets.OPENAI_API_KEY} github= aws= plain=visible\n[exit code 0]`);
    expect(leaked(allowed.log)).toEqual(['OPENAI_API_KEY', 'AGENTCHART_TEST_PLAIN']);
    const stricter = await echoThroughAgent(
      codingTools({ bash: { env: { withhold: ['agentchart_test_*'] } } }),
    );
    expect(stricter.result).toBe('openai= github= aws= plain=\n[exit code 0]');
    const everything = await echoThroughAgent(codingTools({ bash: { env: { allow: ['*'] } } }));
    expect(leaked(everything.log)).toEqual(Object.keys(secrets));
  });

  it('refuses a bad option with a ConfigError naming it', () => {
    const attempt = (options: unknown) => {
      try {
        codingTools(options as Parameters<typeof codingTools>[0]);
        return 'accepted';
      } catch (error) {
        return ConfigError.isInstance(error) ? error.message : `not a ConfigError: ${error}`;
      }
    };
    expect([
      attempt({ bash: { env: { allow: 'OPENAI_API_KEY' } } }),
      attempt({ bash: { env: { alow: ['OPENAI_API_KEY'] } } }),
      attempt({ bash: { env: { withhold: ['A=B'] } } }),
      attempt({ bash: { killGraceMs: Number.NaN } }),
      attempt({ grep: { maxLines: 0 } }),
      attempt({ bsah: {} }),
      attempt('bash'),
    ]).toEqual([
      'codingTools: bash.env.allow must be an array of variable names or patterns, got "OPENAI_API_KEY"',
      'codingTools: bash.env has an unknown key "alow" (did you mean "allow"?)',
      'codingTools: bash.env.withhold[0] must be a variable name or a pattern with *, without "=" or NUL, got "A=B"',
      'codingTools: bash.killGraceMs must be a whole number of milliseconds from 0 to 2147483647, got NaN',
      'codingTools: grep.maxLines must be a positive integer, got 0',
      'codingTools: unknown option "bsah" (did you mean "bash"?)',
      'codingTools: options must be an object, got "bash"',
    ]);
  });
});

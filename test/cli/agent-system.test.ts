import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionModeOf, providerFor, sessionsFolder } from '../../src/cli/agent-system.ts';

describe('the CLI system from flags', () => {
  it('takes the mode from --mode, else --yes, else the recorded mode, else the default', () => {
    expect([
      permissionModeOf({}),
      permissionModeOf({ yes: true }),
      permissionModeOf({ mode: 'plan', yes: true }),
      permissionModeOf({}, 'bypass'),
      permissionModeOf({ yes: true }, 'plan'),
      permissionModeOf({ mode: 'default' }, 'bypass'),
    ]).toEqual(['default', 'accept-edits', 'plan', 'bypass', 'accept-edits', 'default']);
  });

  it('keeps session logs in .agentchart/sessions of the workspace', () => {
    expect(sessionsFolder('/work/project')).toBe(join('/work/project', '.agentchart', 'sessions'));
  });
});

describe('the context window from the command line', () => {
  const io = (env: Record<string, string>) =>
    ({ env, cwd: '/', stdout: process.stdout, stderr: process.stderr }) as never;
  const local = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'qwen3:8b' };

  it('comes from --context-window, else AGENTCHART_CONTEXT_WINDOW, else the adapter (unknown: undefined)', async () => {
    const windowOf = async (chosen: ReturnType<typeof providerFor>) => (await chosen).provider.contextWindow;
    expect([
      await windowOf(providerFor(io(local), { contextWindow: 8192 })),
      await windowOf(providerFor(io({ ...local, AGENTCHART_CONTEXT_WINDOW: '16384' }), {})),
      await windowOf(
        providerFor(io({ ...local, AGENTCHART_CONTEXT_WINDOW: '16384' }), { contextWindow: 4096 }),
      ),
      await windowOf(providerFor(io(local), {})),
      await windowOf(providerFor(io({ ANTHROPIC_API_KEY: 'k' }), {})),
    ]).toEqual([8192, 16384, 4096, undefined, 200_000]);
  });

  it('refuses an AGENTCHART_CONTEXT_WINDOW that is not a positive whole number, with exit code 2', async () => {
    for (const bad of ['0', '-5', '8k', '1.5']) {
      const attempt = () => providerFor(io({ ...local, AGENTCHART_CONTEXT_WINDOW: bad }), {});
      await expect(attempt()).rejects.toThrow(
        `AGENTCHART_CONTEXT_WINDOW must be a positive whole number of tokens, got "${bad}"`,
      );
    }
  });
});

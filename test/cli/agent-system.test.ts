import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionModeOf, providerFor } from '../../src/cli/agent-flags.ts';
import { sessionsFolder, stateFolder, workspaceKey } from '../../src/cli/session-folders.ts';

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

  it("keeps session logs in the user's state folder, one folder per workspace, unless --session-dir says", () => {
    const key = workspaceKey('/work/project');
    expect(key).toMatch(/^project-[0-9a-f]{12}$/);
    expect(workspaceKey('/other/project')).not.toBe(key);
    expect(sessionsFolder('/work/project', { XDG_STATE_HOME: '/state' })).toBe(
      join('/state', 'agentchart', 'sessions', key),
    );
    expect(sessionsFolder('/work/project', { HOME: '/home/me' })).toBe(
      join('/home/me', '.local', 'state', 'agentchart', 'sessions', key),
    );
    expect(sessionsFolder('/work/project', {}, 'logs', '/here')).toBe(join('/here', 'logs'));
    // A relative XDG_STATE_HOME is invalid by the spec and ignored.
    expect(stateFolder({ HOME: '/h', XDG_STATE_HOME: 'rel' }, 'linux')).toBe('/h/.local/state/agentchart');
    expect(stateFolder({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/agentchart');
    expect(stateFolder({ HOME: '/h', LOCALAPPDATA: '/l' }, 'win32')).toBe(join('/l', 'agentchart', 'State'));
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

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { WorkspaceCheck } from '../../src/runtime/workspace-check.ts';

describe('WorkspaceCheck', () => {
  it('checks a folder once per system, and does not remember a failure', async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentchart-workspace-'));
    const folder = join(root, 'later');
    const check = new WorkspaceCheck();
    const missing = await check.check(folder).catch((error: unknown) => error);
    expect(ConfigError.isInstance(missing) && missing.message).toBe(
      `workspace "${folder}" is not a directory`,
    );
    mkdirSync(folder);
    await expect(check.check(folder)).resolves.toBeUndefined();
    // Checked once: the system's later agents do not look again (no stat per createAgent).
    rmSync(folder, { recursive: true });
    await expect(check.check(folder)).resolves.toBeUndefined();
    await expect(new WorkspaceCheck().check(folder)).rejects.toThrow('is not a directory');
    rmSync(root, { recursive: true });
  });
});

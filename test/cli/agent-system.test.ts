import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionModeOf, sessionsFolder } from '../../src/cli/agent-system.ts';

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

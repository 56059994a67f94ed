// `permissions.ask` rules (Claude Code's order: deny, then ask, then allow) and `Skill(name)` rules.
import { describe, expect, it } from 'vitest';
import { decidePermission, type PermissionRequest } from '../../src/permissions/decide.ts';

const bash = { name: 'bash', access: 'exec' } as const;
const write = { name: 'write_file', access: 'write' } as const;
const decide = (request: Partial<PermissionRequest> & Pick<PermissionRequest, 'tool' | 'input'>) => {
  const { decision, reason } = decidePermission({ mode: 'default', ...request });
  return [decision, reason];
};

describe('ask rules', () => {
  it('ask where an allow rule, a session allowance or the mode would allow; a deny rule still wins', () => {
    const ask = ['Bash(git push:*)'];
    expect(
      decide({ tool: bash, input: { command: 'git push' }, ask, allow: ['bash'], mode: 'bypass' }),
    ).toEqual(['ask', 'asks by rule Bash(git push:*)']);
    expect(
      decide({
        tool: bash,
        input: { command: 'git push' },
        ask,
        sessionRules: ['bash(git:*)'],
        mode: 'bypass',
      }),
    ).toEqual(['ask', 'asks by rule Bash(git push:*)']);
    expect(decide({ tool: bash, input: { command: 'git push' }, ask, deny: ['Bash(git:*)'] })).toEqual([
      'deny',
      'denied by rule Bash(git:*)',
    ]);
    expect(decide({ tool: bash, input: { command: 'git status' }, ask, allow: ['bash'] })).toEqual([
      'allow',
      'allowed by rule bash',
    ]);
  });

  it('cover any command of a line, as deny rules do, and never loosen what the mode denies', () => {
    const ask = ['Bash(rm:*)'];
    expect(decide({ tool: bash, input: { command: 'ls && rm -rf build' }, ask, allow: ['bash'] })).toEqual([
      'ask',
      'asks by rule Bash(rm:*)',
    ]);
    expect(decide({ tool: bash, input: { command: 'eval "$X"' }, ask, allow: ['bash'] })[0]).toBe('ask');
    expect(decide({ tool: write, input: { path: 'a.txt' }, ask: ['Write'], mode: 'plan' })).toEqual([
      'deny',
      'write access is not allowed in plan mode',
    ]);
  });
});

describe('Skill(name) rules', () => {
  const skill = { name: 'skill', access: 'none' } as const;
  it("match the skill's name, with * as a wildcard", () => {
    const deny = ['Skill(deploy)', 'Skill(release-*)'];
    expect(decide({ tool: skill, input: { name: 'deploy' }, deny })).toEqual([
      'deny',
      'denied by rule Skill(deploy)',
    ]);
    expect(decide({ tool: skill, input: { name: 'release-notes' }, deny })[0]).toBe('deny');
    expect(decide({ tool: skill, input: { name: 'review' }, deny })[0]).toBe('allow');
  });
});

describe('Read(path) deny and ask rules', () => {
  it('guard editing and writing the path too, as Claude Code documents; a Read allow grants reading only', () => {
    const deny = ['Read(./.env)'];
    for (const name of ['read_file', 'edit_file', 'write_file'] as const)
      expect(decide({ tool: { name, access: 'write' }, input: { path: '.env' }, deny })).toEqual([
        'deny',
        'denied by rule Read(./.env)',
      ]);
    expect(decide({ tool: write, input: { path: 'notes.txt' }, deny, mode: 'accept-edits' })[0]).toBe(
      'allow',
    );
    expect(
      decide({ tool: write, input: { path: 'config/.env' }, ask: ['Read(.env)'], mode: 'bypass' })[0],
    ).toBe('ask');
    expect(decide({ tool: write, input: { path: '.env' }, allow: ['Read(./.env)'] })[0]).toBe('ask');
  });
});

describe('Read(path) rules over bash file commands', () => {
  it("cover the files cat, head, tail and sed read, as Claude Code's do; an argument bash expands asks", () => {
    const rules = {
      deny: ['Read(./.env)'],
      ask: ['Read(secrets/**)'],
      allow: ['Bash(cat:*)', 'Bash(head:*)'],
    };
    const line = (command: string) => decide({ tool: bash, input: { command }, ...rules, cwd: '/w' });
    expect(line('cat .env')).toEqual(['deny', 'denied by rule Read(./.env)']);
    expect(line('cat README.md && head -n 5 ./.env')).toEqual(['deny', 'denied by rule Read(./.env)']);
    expect(line('cat secrets/key.pem')).toEqual(['ask', 'asks by rule Read(secrets/**)']);
    expect(line('cat README.md')).toEqual(['allow', 'allowed by rule Bash(cat:*)']);
    expect(line('cat "$F"')[0]).toBe('ask');
    expect(line('cat .e*')[0]).toBe('ask');
    expect(
      decide({ tool: bash, input: { command: 'cat "$F"' }, deny: ['Read(./.env)'], mode: 'bypass' }),
    ).toEqual(['ask', 'cannot tell which file cat reads ("$F") while 1 Read rule(s) guard reading']);
    expect(
      decide({ tool: bash, input: { command: 'head config/.env' }, deny: ['Read(.env)'], mode: 'bypass' }),
    ).toEqual(['deny', 'denied by rule Read(.env)']);
  });
});

describe('Edit(path) rules over bash redirections', () => {
  it('check redirect targets as writes, as Claude Code does; a target bash expands, or one it cannot place, asks', () => {
    const rules = { deny: ['Edit(./tsconfig.json)', 'Read(./.env)'], allow: ['Bash(echo:*)'] };
    const line = (command: string, mode: PermissionRequest['mode'] = 'default') =>
      decide({ tool: bash, input: { command }, ...rules, mode, cwd: '/w' });
    expect(line('echo {} > tsconfig.json')).toEqual(['deny', 'denied by rule Edit(./tsconfig.json)']);
    expect(line('echo x >> ./.env')).toEqual(['deny', 'denied by rule Read(./.env)']);
    expect(line('echo ok > notes.txt')).toEqual(['allow', 'allowed by rule Bash(echo:*)']);
    expect(line('echo ok 2>&1 > /dev/null')).toEqual(['allow', 'allowed by rule Bash(echo:*)']);
    expect(line('echo x > "$OUT"', 'bypass')[0]).toBe('ask');
    expect(line('(echo {} > tsconfig.json)', 'bypass')[0]).toBe('ask');
    expect(line('cd src && echo x > tsconfig.json', 'bypass')[0]).toBe('ask');
    expect(line('make build', 'bypass')).toEqual(['allow', 'exec access is allowed in bypass mode']);
  });
});

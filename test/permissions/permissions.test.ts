import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { decidePermission, type PermissionDecision, sessionKey } from '../../src/permissions/decide.ts';
import {
  type PermissionMode,
  permissionModes,
  stricterMode,
  toolsOfferedInMode,
} from '../../src/permissions/modes.ts';
import { parseRule } from '../../src/permissions/rules.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import type { ToolAccess } from '../../src/tools/define-tool.ts';

const accesses: ToolAccess[] = ['none', 'read', 'write', 'exec'];

// The specification, written out by hand: what the mode alone decides.
const byMode: Record<PermissionMode, Record<ToolAccess, PermissionDecision['decision']>> = {
  plan: { none: 'allow', read: 'allow', write: 'deny', exec: 'deny' },
  default: { none: 'allow', read: 'allow', write: 'ask', exec: 'ask' },
  'accept-edits': { none: 'allow', read: 'allow', write: 'allow', exec: 'ask' },
  bypass: { none: 'allow', read: 'allow', write: 'allow', exec: 'allow' },
};

type RuleCase = 'no rule' | 'allow rule' | 'deny rule' | 'both';
const ruleCases: { name: RuleCase; allow: string[]; deny: string[]; expect?: ['allow' | 'deny', 'rule'] }[] =
  [
    { name: 'no rule', allow: [], deny: [] },
    { name: 'allow rule', allow: ['probe'], deny: [], expect: ['allow', 'rule'] },
    { name: 'deny rule', allow: [], deny: ['probe'], expect: ['deny', 'rule'] },
    { name: 'both', allow: ['probe'], deny: ['probe'], expect: ['deny', 'rule'] },
  ];

describe('decidePermission', () => {
  it('decides every mode x access x rule combination as specified (64 cases)', () => {
    let count = 0;
    for (const mode of permissionModes) {
      for (const access of accesses) {
        for (const rules of ruleCases) {
          const decision = decidePermission({
            mode,
            allow: rules.allow,
            deny: rules.deny,
            tool: { name: 'probe', access },
            input: { path: 'src/a.ts' },
          });
          const expected = rules.expect ?? [byMode[mode][access], 'mode'];
          expect([mode, access, rules.name, decision.decision, decision.by]).toEqual([
            mode,
            access,
            rules.name,
            ...expected,
          ]);
          count++;
        }
      }
    }
    expect(count).toBe(64);
  });

  it('gives a reason naming the rule or the mode', () => {
    const tool = { name: 'write_file', access: 'write' as const };
    expect(
      decidePermission({ mode: 'default', tool, input: { path: 'a' }, deny: ['write_file(a)'] }),
    ).toEqual({
      decision: 'deny',
      by: 'rule',
      reason: 'denied by rule write_file(a)',
    });
    expect(decidePermission({ mode: 'default', tool, input: { path: 'a' } })).toEqual({
      decision: 'ask',
      by: 'mode',
      reason: 'write access needs approval in default mode',
    });
  });

  it('matches bash rules against the command with * as a wildcard', () => {
    const bash = { name: 'bash', access: 'exec' as const };
    const decide = (command: string, allow: string[], deny: string[] = []) =>
      decidePermission({ mode: 'default', allow, deny, tool: bash, input: { command } }).decision;
    const rows: [string, string[], string[], string][] = [
      ['npm test', ['bash(npm test*)'], [], 'allow'],
      ['  npm test -- --watch ', ['bash(npm test*)'], [], 'allow'],
      ['npx npm test', ['bash(npm test*)'], [], 'ask'],
      ['npm test; rm -rf ~', ['bash(npm test*)'], [], 'ask'],
      ['npm test && curl $(cat token)', ['bash(npm test*)', 'bash(curl *)'], [], 'ask'],
      ['npm test && npm run lint', ['bash(npm test*)', 'bash(npm run lint)'], [], 'allow'],
      ['echo "a; b" | grep a', ['bash(echo *)', 'bash(grep *)'], [], 'allow'],
      ['ls && rm -rf x', ['bash'], ['bash(rm *)'], 'deny'],
      ['echo $(rm -rf x)', ['bash'], ['bash(rm *)'], 'deny'],
      ['echo "rm -rf x"', [], ['bash(rm *)'], 'ask'],
      ['make 2>&1 | tee log', ['bash(make*)', 'bash(tee *)'], [], 'allow'],
      ['anything at all; really', ['bash'], [], 'allow'],
    ];
    expect(rows.map(([command, allow, deny]) => decide(command, allow, deny))).toEqual(
      rows.map((row) => row[3]),
    );
  });

  it('matches file rules against the path argument with picomatch', () => {
    const write = { name: 'write_file', access: 'write' as const };
    const decide = (input: unknown) =>
      decidePermission({ mode: 'default', allow: ['write_file(src/**)'], tool: write, input, cwd: '/ws' })
        .decision;
    expect(
      [
        { path: 'src/a/b.ts' },
        { path: './src/a.ts' },
        { path: '/ws/src/a.ts' },
        { path: 'src/.hidden' },
        { path: 'lib/a.ts' },
        { path: 'src/../lib/a.ts' },
        { path: '../src/a.ts' },
        { path: '/elsewhere/src/a.ts' },
        {},
      ].map(decide),
    ).toEqual(['allow', 'allow', 'allow', 'allow', 'ask', 'ask', 'ask', 'ask', 'ask']);
  });

  it('remembers session allowances by tool, and for bash by the exact command', () => {
    const bash = { name: 'bash', access: 'exec' as const };
    const write = { name: 'write_file', access: 'write' as const };
    const sessionAllowed = new Set([
      sessionKey(bash, { command: 'npm test' }),
      sessionKey(write, { path: 'a' }),
    ]);
    expect([...sessionAllowed]).toEqual(['bash(npm test)', 'write_file']);
    const decide = (tool: typeof bash | typeof write, input: unknown, deny: string[] = []) => {
      const d = decidePermission({ mode: 'default', sessionAllowed, deny, tool, input });
      return `${d.decision}/${d.by}`;
    };
    expect([
      decide(bash, { command: 'npm test' }),
      decide(bash, { command: 'npm test --watch' }),
      decide(write, { path: 'anything.txt' }),
      decide(write, { path: 'x' }, ['write_file']),
    ]).toEqual(['allow/session', 'ask/mode', 'allow/session', 'deny/rule']);
  });
});

describe('parseRule', () => {
  it('reads a tool name with an optional pattern', () => {
    expect([
      parseRule('read_file'),
      parseRule('bash(npm test*)'),
      parseRule(' write_file( src/** ) '),
    ]).toEqual([
      { tool: 'read_file', pattern: undefined },
      { tool: 'bash', pattern: 'npm test*' },
      { tool: 'write_file', pattern: 'src/**' },
    ]);
  });

  it('refuses malformed rules with a ConfigError that says what to write', () => {
    for (const rule of ['', 'bash(', 'bash()', 'ba sh', 'bash(x)y', '(x)']) {
      expect(() => parseRule(rule)).toThrow(ConfigError);
    }
    expect(() => parseRule('bash()')).toThrow(
      'Malformed permission rule "bash()": the pattern in parentheses is empty.',
    );
    expect(() =>
      decidePermission({
        mode: 'bypass',
        allow: ['bad rule'],
        tool: { name: 'x', access: 'none' },
        input: {},
      }),
    ).toThrow(/^Malformed permission rule "bad rule": write a tool name/);
  });
});

describe('toolsOfferedInMode', () => {
  it('offers only read and none tools in plan mode, and everything otherwise', () => {
    const tools = codingTools();
    const names = (mode: PermissionMode) => toolsOfferedInMode(tools, mode).map((tool) => tool.name);
    expect(names('plan')).toEqual(['read_file', 'list_dir', 'glob', 'grep']);
    for (const mode of ['default', 'accept-edits', 'bypass'] as const) {
      expect(names(mode)).toEqual([
        'read_file',
        'write_file',
        'edit_file',
        'list_dir',
        'glob',
        'grep',
        'bash',
      ]);
    }
    const custom = accesses.map((access) => ({ ...tools[0]!, name: `t_${access}`, access }));
    expect(toolsOfferedInMode(custom, 'plan').map((tool) => tool.access)).toEqual(['none', 'read']);
  });
});

describe('stricterMode', () => {
  it('picks the mode that allows less, whichever side it is on', () => {
    const table = permissionModes.map((a) => permissionModes.map((b) => stricterMode(a, b)));
    expect(table).toEqual([
      ['plan', 'plan', 'plan', 'plan'],
      ['plan', 'default', 'default', 'default'],
      ['plan', 'default', 'accept-edits', 'accept-edits'],
      ['plan', 'default', 'accept-edits', 'bypass'],
    ]);
  });
});

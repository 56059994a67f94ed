// Claude Code's matcher rules (hooks "Matcher patterns"): exact names when the matcher has only letters,
// digits, `_`, `-`, spaces, `,` and `|`; an unanchored regular expression otherwise; Claude Code's tool names
// standing for agentchart's tools.
import { describe, expect, it } from 'vitest';
import { pointMatcher, toolMatcher, valueMatcher } from '../../src/hooks/hook-matcher.ts';

const tools = [
  'bash',
  'read_file',
  'write_file',
  'edit_file',
  'mcp__memory__create',
  'mcp__nb__NotebookEdit',
];
const matched = (matcher: string) => tools.filter(toolMatcher(matcher) ?? (() => true));

describe('hook matchers', () => {
  it('`*`, empty and omitted match everything', () => {
    expect(toolMatcher('*')).toBeUndefined();
    expect(toolMatcher('')).toBeUndefined();
    expect(toolMatcher(undefined)).toBeUndefined();
  });

  it('exact names: split on | or , with spaces trimmed; Claude Code names stand for agentchart tools', () => {
    expect(matched('Bash')).toEqual(['bash']);
    expect(matched('Edit|Write')).toEqual(['write_file', 'edit_file']);
    expect(matched('Bash, Read')).toEqual(['bash', 'read_file']);
    expect(matched('read_file')).toEqual(['read_file']);
    // Exact: the server's name alone names no tool (Claude Code's own example).
    expect(matched('mcp__memory')).toEqual([]);
    // Not a substring either: `Edit` does not match `NotebookEdit`.
    expect(matched('Edit')).toEqual(['edit_file']);
  });

  it('any other character makes an unanchored regular expression', () => {
    expect(matched('mcp__memory__.*')).toEqual(['mcp__memory__create']);
    expect(matched('Edit.*')).toEqual(['edit_file', 'mcp__nb__NotebookEdit']);
    expect(matched('^Edit$')).toEqual(['edit_file']);
    expect(matched('Notebook.*')).toEqual(['mcp__nb__NotebookEdit']);
  });

  it('SessionStart matches the source, PreCompact the trigger; UserPromptSubmit and Stop ignore a matcher', () => {
    const sources = ['startup', 'resume', 'fork'];
    expect(sources.filter(pointMatcher('sessionStart', 'startup')!)).toEqual(['startup']);
    expect(sources.filter(pointMatcher('sessionStart', 'resume|fork')!)).toEqual(['resume', 'fork']);
    expect(['auto', 'manual'].filter(pointMatcher('preCompact', 'manual')!)).toEqual(['manual']);
    expect(pointMatcher('userMessage', 'anything')).toBeUndefined();
    expect(pointMatcher('stop', '*')).toBeUndefined();
    expect(valueMatcher('startup')!('Startup')).toBe(false);
  });
});

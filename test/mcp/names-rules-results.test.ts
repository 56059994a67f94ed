// The pure parts of the MCP client: tool names, permission rules over them, and results as text.
import { describe, expect, it } from 'vitest';
import { outputOfCallResult } from '../../src/mcp/call-result.ts';
import { mcpToolName, serverOfTool } from '../../src/mcp/tool-names.ts';
import { matchesRule, parseRule, ruleProblem } from '../../src/permissions/rules.ts';

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool>, with unusable characters as "_" and long names cut with a hash', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('s', 'files.read/all')).toBe('mcp__s__files_read_all');
    const long = mcpToolName('server', 'x'.repeat(80));
    const other = mcpToolName('server', `${'x'.repeat(79)}y`);
    expect([long.length, other.length]).toEqual([64, 64]);
    expect(long).not.toBe(other);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect([serverOfTool('mcp__github__create_issue'), serverOfTool('read_file')]).toEqual([
      'github',
      undefined,
    ]);
  });
});

describe('permission rules over MCP tools', () => {
  const covers = (rule: string, tool: string, input: unknown = {}) =>
    matchesRule(parseRule(rule), tool, input);

  it('take * in the tool name, and mcp__<server> for every tool of a server', () => {
    expect(ruleProblem('mcp__github__*')).toBeUndefined();
    expect([
      covers('mcp__github__*', 'mcp__github__create_issue'),
      covers('mcp__github__*', 'mcp__gitlab__create_issue'),
      covers('mcp__*__search', 'mcp__docs__search'),
      covers('mcp__*__search', 'mcp__docs__search_all'),
      covers('mcp__github', 'mcp__github__create_issue'),
      covers('mcp__git', 'mcp__github__create_issue'),
      covers('mcp__github', 'mcp__github'),
      covers('read_*', 'read_file'),
    ]).toEqual([true, false, true, false, true, false, true, true]);
    expect(covers('mcp__fs__read_text_file(src/**)', 'mcp__fs__read_text_file', { path: 'src/a.ts' })).toBe(
      true,
    );
    expect(covers('mcp__fs__read_text_file(src/**)', 'mcp__fs__read_text_file', { path: 'lib/a.ts' })).toBe(
      false,
    );
  });
});

describe('MCP results as the model reads them', () => {
  it('keeps text, describes binary content and links, and marks isError', () => {
    const wav = Buffer.from('RIFF0000WAVE').toString('base64');
    expect(
      outputOfCallResult({
        content: [
          { type: 'text', text: 'first' },
          { type: 'audio', data: wav, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/zip', blob: wav } },
          { type: 'resource_link', uri: 'file:///b.txt', name: 'b', mimeType: 'text/plain' },
          { type: 'hologram' },
        ],
      }),
    ).toBe(
      [
        'first',
        '[audio: audio/wav, 12 bytes; its contents are not shown as text]',
        '[resource file:///a.bin (application/zip)] 12 bytes of binary data, not shown as text',
        '[resource link: file:///b.txt (b), text/plain]',
        '[content of type "hologram" that agentchart cannot show as text]',
      ].join('\n'),
    );
    expect(outputOfCallResult({ content: [], structuredContent: { t: 1 } })).toBe('{"t":1}');
    expect(outputOfCallResult({ content: [{ type: 'text', text: 'no' }], isError: true })).toEqual({
      content: 'no',
      isError: true,
    });
    expect(outputOfCallResult({ isError: true })).toEqual({ content: 'The MCP tool failed.', isError: true });
  });
});

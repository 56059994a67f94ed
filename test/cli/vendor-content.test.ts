// The transcript's lines for what an assistant message holds besides text and tool calls.
import { describe, expect, it } from 'vitest';
import { vendorContentLines } from '../../src/cli/terminal/vendor-content.ts';
import type { ProviderPart } from '../../src/providers/types.ts';

const part = (provider: string, data: Record<string, unknown> & { type: string }): ProviderPart => ({
  provider,
  type: data.type,
  data,
});

describe('vendor content in the transcript', () => {
  it('names the tools the provider ran, their results, declined approvals and compaction', () => {
    const parts = [
      part('anthropic', { type: 'thinking', thinking: 'hm', signature: 's' }),
      part('anthropic', { type: 'text', text: 'Searching.' }),
      part('anthropic', {
        type: 'server_tool_use',
        id: 'st1',
        name: 'web_search',
        input: { query: 'xstate' },
      }),
      part('anthropic', { type: 'web_search_tool_result', tool_use_id: 'st1', content: [] }),
      part('anthropic', {
        type: 'code_execution_tool_result',
        tool_use_id: 'st2',
        content: { type: 'code_execution_tool_result_error', error_code: 'unavailable' },
      }),
      part('anthropic', { type: 'mcp_tool_use', id: 'm1', name: 'echo', server_name: 'tools', input: {} }),
      part('anthropic', { type: 'compaction', content: 'summary' }),
      part('openai', { type: 'web_search_call', id: 'ws1', action: { type: 'search', query: 'agents' } }),
      part('openai', { type: 'code_interpreter_call', id: 'ci1' }),
      part('openai', { type: 'mcp_approval_request', id: 'ap1', name: 'deploy', server_label: 'ops' }),
      part('ai-sdk/mock', { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }),
      part('ai-sdk/mock', {
        type: 'tool-call',
        toolCallId: 'g1',
        toolName: 'google_search',
        input: {},
        providerExecuted: true,
      }),
      part('ai-sdk/mock', {
        type: 'tool-result',
        toolCallId: 'g1',
        toolName: 'google_search',
        output: { type: 'json', value: [] },
      }),
      part('odd', { type: 'hologram' }),
    ];
    expect(vendorContentLines(parts, [])).toEqual([
      '⚙ web_search (run by the provider) {"query":"xstate"}',
      '  ← web_search_tool_result',
      '  ← code_execution_tool_result (error)',
      '⚙ tools/echo (run by the provider) {}',
      '(the provider compacted the context)',
      '⚙ web search (run by the provider): agents',
      '⚙ code interpreter (run by the provider)',
      "? deploy asked for approval on the provider's side: declined (nothing here can approve it)",
      '⚙ google_search (run by the provider) {}',
      '  ← google_search',
      '(hologram from the provider, kept in the log)',
    ]);
  });

  it('lists each cited source once, and at most eight', () => {
    const citations = Array.from({ length: 10 }, (_, index) => ({
      source: 'url' as const,
      url: `https://example.com/${index}`,
      ...(index === 0 ? { title: 'First' } : {}),
    }));
    expect(
      vendorContentLines(undefined, [...citations, citations[0]!, { source: 'file', fileId: 'file-1' }]),
    ).toEqual([
      'sources (11):',
      '  [1] First — https://example.com/0',
      ...Array.from({ length: 7 }, (_, index) => `  [${index + 2}] https://example.com/${index + 1}`),
      '  … 3 more',
    ]);
    expect(vendorContentLines([], [])).toEqual([]);
  });
});

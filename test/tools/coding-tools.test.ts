import { describe, expect, it } from 'vitest';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { isConcurrencySafe, toolSpec } from '../../src/tools/define-tool.ts';

const expected: Record<string, { access: string; safe: boolean; properties: string[]; required: string[] }> =
  {
    read_file: { access: 'read', safe: true, properties: ['path', 'offset', 'limit'], required: ['path'] },
    write_file: {
      access: 'write',
      safe: false,
      properties: ['path', 'content'],
      required: ['path', 'content'],
    },
    edit_file: {
      access: 'write',
      safe: false,
      properties: ['path', 'old_string', 'new_string', 'replace_all'],
      required: ['path', 'old_string', 'new_string'],
    },
    list_dir: { access: 'read', safe: true, properties: ['path'], required: [] },
    glob: { access: 'read', safe: true, properties: ['pattern', 'path'], required: ['pattern'] },
    grep: {
      access: 'read',
      safe: true,
      properties: ['pattern', 'path', 'glob', 'context'],
      required: ['pattern'],
    },
    bash: { access: 'exec', safe: false, properties: ['command', 'timeout_ms'], required: ['command'] },
  };

describe('codingTools', () => {
  it('returns the seven built-ins in a fixed order', () => {
    expect(codingTools().map((tool) => tool.name)).toEqual(Object.keys(expected));
  });

  it('gives each tool an object JSON Schema with its snake_case properties, access and concurrency', () => {
    for (const tool of codingTools()) {
      const spec = toolSpec(tool);
      const want = expected[tool.name]!;
      expect({
        name: spec.name,
        type: spec.inputSchema.type,
        properties: Object.keys(spec.inputSchema.properties as object),
        required: (spec.inputSchema.required as string[] | undefined) ?? [],
        access: tool.access,
        safe: isConcurrencySafe(tool, {}),
      }).toEqual({ name: tool.name, type: 'object', ...want });
      expect(spec.description.length).toBeGreaterThan(80);
    }
  });

  it('passes options through to the tools', () => {
    const bash = codingTools({ bash: { defaultTimeoutMs: 5000 } }).find((tool) => tool.name === 'bash')!;
    expect(bash.description).toContain('default 5000');
  });
});

// What an MCP `tools/call` answered, turned into the result the model reads: text as it is, images and
// audio described (never dropped silently, never dumped as base64), embedded resources as their text or
// a description, links as a line, structured content as JSON when nothing else came, and `isError` as an
// error result.
import type { ToolOutput } from '../tools/define-tool.ts';
import { describeImage } from '../tools/image-info.ts';

/** One block of an MCP tool result, loosely: servers send more than the specification names. */
type Block = { type?: unknown; [key: string]: unknown };

export type McpCallResult = {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
};

/** The tool output for a result; `isError: true` makes it an error result the model reads. */
export function outputOfCallResult(result: McpCallResult): ToolOutput {
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts = blocks.map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  // Servers of the 2024-10-07 protocol answer `{ toolResult }` instead of content.
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  const content = parts.join('\n');
  return result.isError === true ? { content: content || 'The MCP tool failed.', isError: true } : content;
}

function describeBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
      return describeBinary('image', block);
    case 'audio':
      return describeBinary('audio', block);
    case 'resource':
      return describeResource(block.resource);
    case 'resource_link':
      return `[resource link: ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ''}${
        typeof block.mimeType === 'string' ? `, ${block.mimeType}` : ''
      }${typeof block.description === 'string' ? ` — ${block.description}` : ''}]`;
    default:
      return `[content of type ${JSON.stringify(block.type)} that agentchart cannot show as text]`;
  }
}

function describeBinary(kind: 'image' | 'audio', block: Block): string {
  const mimeType = typeof block.mimeType === 'string' ? block.mimeType : 'unknown type';
  const bytes = typeof block.data === 'string' ? Buffer.from(block.data, 'base64') : Buffer.alloc(0);
  if (kind === 'image') {
    const described = describeImage(`The ${mimeType} image`, bytes.subarray(0, 64), bytes.length);
    if (described !== undefined) return `[${described}]`;
  }
  return `[${kind}: ${mimeType}, ${bytes.length} bytes; its contents are not shown as text]`;
}

function describeResource(resource: unknown): string {
  if (typeof resource !== 'object' || resource === null) return '[embedded resource without content]';
  const { uri, mimeType, text, blob } = resource as Record<string, unknown>;
  const head = `[resource ${String(uri)}${typeof mimeType === 'string' ? ` (${mimeType})` : ''}]`;
  if (typeof text === 'string') return `${head}\n${text}`;
  const bytes = typeof blob === 'string' ? Buffer.from(blob, 'base64').length : 0;
  return `${head} ${bytes} bytes of binary data, not shown as text`;
}

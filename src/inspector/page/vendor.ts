/**
 * vendor.js of the inspector page: under an assistant message, what the provider ran on its side (server
 * tools, MCP, web search, code execution), approval requests it declined, and the sources it cited.
 */
export const vendorScript = String.raw`
import { add, el } from './core.js';

export function vendorContent(box, d) {
  const ran = (d.providerParts || []).filter((p) => p.data && (p.data.providerExecuted === true ||
    /^(server_tool_use|mcp_tool_use|mcp_list_tools|compaction)$|_call$/.test(p.type) && !/^(function_call|custom_tool_call)$/.test(p.type)))
    .map((p) => p.data.toolName || p.data.name || p.type.replace(/_call$/, '').replace(/_/g, ' '));
  if (ran.length) box.appendChild(el('div', 'note', 'run by the provider: ' + ran.join(', ')));
  const asked = (d.providerParts || []).filter((p) => p.type === 'mcp_approval_request' || p.type === 'tool-approval-request');
  for (const p of asked) box.appendChild(el('div', 'note warn', 'approval asked on the provider\'s side for ' + (p.data.name || p.data.toolCallId) + ': declined'));
  const seen = new Set();
  const list = el('div', 'note');
  for (const c of d.citations || []) {
    const where = c.url || c.fileId || c.source;
    if (seen.has(where)) continue;
    seen.add(where);
    const link = el('a', '', (c.title ? c.title + ' — ' : '') + where);
    if (/^https?:/.test(c.url || '')) { link.href = c.url; link.target = '_blank'; link.rel = 'noopener noreferrer'; }
    add(list, document.createTextNode(seen.size === 1 ? 'sources: ' : ' · '), link);
  }
  if (seen.size) box.appendChild(list);
}
`;

// The session as Claude Code writes its transcript (`transcript_path`): one compact JSON object per line,
// `{"type":"user"|"assistant","message":{"role":…,"content":[…]},…}`. Claude Code documents no line
// schema; this follows the lines of real transcripts (docs/claude-code/facts.md §2.10) far enough for the
// scripts that read them: ralph-wiggum's Stop hook greps `"role":"assistant"` and joins the text blocks of
// the last such line. It is derived from the log and never written to it, so it changes nothing a replay
// compares. Built-in tools appear under Claude Code's names and fields, as in a hook's stdin.
import type { LogEvent } from '../session/types.ts';
import { claudeToolName, toClaudeInput } from '../tools/claude-code-names.ts';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean };

/** The JSONL text of a session's transcript, one line per message, each line ending with `\n`. */
export function claudeTranscript(events: readonly LogEvent[], sessionId: string, cwd: string): string {
  const lines: string[] = [];
  const line = (event: LogEvent, role: 'user' | 'assistant', content: Block[]) =>
    lines.push(
      JSON.stringify({
        type: role,
        message: { role, content },
        uuid: `${sessionId}:${event.seq}`,
        sessionId,
        cwd,
        timestamp: new Date(event.ts).toISOString(),
      }),
    );
  for (const event of events) {
    const data = event.data;
    if (event.type === 'user.message') {
      line(event, 'user', [{ type: 'text', text: String(data.content) }]);
    } else if (event.type === 'assistant.message') {
      const text =
        typeof data.text === 'string' && data.text !== '' ? [{ type: 'text' as const, text: data.text }] : [];
      const calls = Array.isArray(data.toolCalls)
        ? (data.toolCalls as { id: string; name: string; input: unknown }[])
        : [];
      const uses = calls.map((call) => ({
        type: 'tool_use' as const,
        id: call.id,
        name: claudeToolName(call.name),
        input: toClaudeInput(call.name, call.input, cwd),
      }));
      line(event, 'assistant', [...text, ...uses]);
    } else if (event.type === 'tool.result') {
      const result: Block = {
        type: 'tool_result',
        tool_use_id: String(data.callId),
        content: String(data.content),
        is_error: data.outcome !== 'ok',
      };
      line(event, 'user', [result]);
    }
  }
  return lines.map((text) => `${text}\n`).join('');
}

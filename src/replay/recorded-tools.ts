import { z } from 'zod/v4';
import { isEvent, type LogEvent } from '../session/types.ts';
import { type AnyTool, defineTool, type ToolAccess } from '../tools/define-tool.ts';

const accesses: readonly ToolAccess[] = ['read', 'write', 'exec', 'none'];

/**
 * Stand-ins for the tools of a recording that no built-in tool answers to (a host's own tools), for a
 * replay with recorded tools: each call is answered with the result the log has for it (the runtime's
 * `toolResultsReplay` answers it; `run` here is the answer without one). They are read back from the log —
 * name, description and the input schema verbatim from `session.start`, so the replay describes them
 * byte for byte as recorded; the access the mode decided on; side by side when the recording ran calls of
 * the tool at once; arguments refused where the recording refused them — so the charts go through the
 * same states. `names` picks which recorded tools to stand in for (default: all).
 */
export function recordedTools(events: readonly LogEvent[], names?: readonly string[]): AnyTool[] {
  const start = events[0];
  if (!start || !isEvent(start, 'session.start')) return [];
  const specs = (start.data.config.tools ?? []) as {
    name?: unknown;
    description?: unknown;
    inputSchema?: unknown;
  }[];
  const results = new Map<string, { outcome: string; content: string }>();
  const calls = new Map<string, { name: string; input: unknown }>();
  for (const event of events) {
    if (isEvent(event, 'tool.call'))
      calls.set(event.data.callId, { name: event.data.name, input: event.data.input });
    if (isEvent(event, 'tool.result')) results.set(event.data.callId, event.data);
  }
  // The recorded refusal of each refused call, by tool and input: given again in the recorded words.
  const refused = new Map<string, string>();
  for (const [callId, call] of calls) {
    const prefix = `Invalid arguments for ${call.name}:\n`;
    const content = results.get(callId)?.content;
    if (content?.startsWith(prefix))
      refused.set(
        `${call.name}\n${JSON.stringify(call.input)}`,
        content.slice(prefix.length).replace(/^✖ /, ''),
      );
  }
  return specs
    .filter(
      (spec): spec is { name: string; description?: unknown; inputSchema?: unknown } =>
        typeof spec.name === 'string' && (names === undefined || names.includes(spec.name)),
    )
    .map((spec) => {
      const tool = defineTool({
        name: spec.name,
        description: typeof spec.description === 'string' ? spec.description : spec.name,
        access: accessOf(events, calls, spec.name),
        concurrencySafe: ranSideBySide(events, calls, spec.name),
        // One issue at the root: zod words it `✖ <message>`, the recorded text again.
        input: z.looseObject({}).superRefine((input, context) => {
          const message = refused.get(`${spec.name}\n${JSON.stringify(input)}`);
          if (message !== undefined) context.addIssue({ code: 'custom', message });
        }),
        run: async (_input, context) => {
          const result = results.get(context.callId);
          if (!result) return { content: 'the recording has no result for this call', isError: true };
          return result.outcome === 'ok' ? result.content : { content: result.content, isError: true };
        },
      });
      const schema = spec.inputSchema;
      // Described to the model as recorded (validation stays the stand-in's own, which refuses as recorded).
      return schema && typeof schema === 'object' && !Array.isArray(schema)
        ? { ...tool, inputSchema: schema as Record<string, unknown> }
        : tool;
    });
}

/** The access the permission mode named when it decided about a call of the tool (`write access …`). */
function accessOf(
  events: readonly LogEvent[],
  calls: Map<string, { name: string }>,
  name: string,
): ToolAccess {
  for (const event of events) {
    if (!isEvent(event, 'approval.decided') || calls.get(event.data.callId)?.name !== name) continue;
    const word = /^(\w+) access/.exec(event.data.reason ?? '')?.[1];
    const access = accesses.find((candidate) => candidate === word);
    if (access) return access;
    if (event.data.by === 'host' || event.data.by === 'user') return 'write';
  }
  return 'read';
}

/** Whether a call of the tool started while another call of its step was still running. */
function ranSideBySide(
  events: readonly LogEvent[],
  calls: Map<string, { name: string }>,
  name: string,
): boolean {
  const running = new Set<string>();
  for (const event of events) {
    if (isEvent(event, 'tool.started')) {
      const callName = calls.get(event.data.callId)?.name;
      if (running.size > 0 && callName === name) return true;
      running.add(event.data.callId);
    } else if (isEvent(event, 'tool.result') || isEvent(event, 'step.end')) {
      running.delete(event.data.callId as string);
      if (isEvent(event, 'step.end')) running.clear();
    }
  }
  return false;
}

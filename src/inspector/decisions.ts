import type { IncomingMessage } from 'node:http';
import { isPermissionMode, permissionModes } from '../permissions/modes.ts';
import type { InspectorDecision, InspectorSource } from './protocol.ts';
import type { DecisionVerb } from './routes.ts';

/** The header the page sends its token in. A custom header also makes any cross-origin request preflight. */
export const tokenHeader = 'x-agentchart-token';

const maxBodyBytes = 4096;
const maxReasonChars = 500;

export type DecisionReply = { status: number; body: { ok: true } | { error: string } };

/**
 * Answers a call waiting for approval on behalf of the page: the request must carry the page's token and
 * a JSON body (`{}`, `{ "remember": "session" }` to approve for the session, `{ "mode": "accept-edits" }` to
 * accept a plan and name the mode the agent continues in, or `{ "reason": "…" }` to deny with a reason the
 * model reads). Any other key is a 400 naming it.
 */
export async function decide(
  request: IncomingMessage,
  source: InspectorSource,
  token: string,
  route: { agentId: string; callId: string; verb: DecisionVerb },
): Promise<DecisionReply> {
  if (request.headers[tokenHeader] !== token) return refuse(403, `missing or wrong ${tokenHeader} header`);
  if (!String(request.headers['content-type'] ?? '').startsWith('application/json'))
    return refuse(415, 'send a JSON body (content-type: application/json)');
  const body = await readJson(request);
  if (body === undefined)
    return refuse(400, `the body must be a JSON object of at most ${maxBodyBytes} bytes`);
  const decision = decisionOf(route.verb, body);
  if (typeof decision === 'string') return refuse(400, decision);
  const outcome = source.decide!(route.agentId, route.callId, decision);
  if (outcome === 'no_agent') return refuse(404, `no live agent "${route.agentId}"`);
  if (outcome === 'not_waiting') return refuse(409, `call "${route.callId}" is not waiting for approval`);
  return { status: 200, body: { ok: true } };
}

/** The keys each verb's body may hold; any other key is refused by name (a typo must not approve plainly). */
const bodyKeys: Record<DecisionVerb, readonly string[]> = { approve: ['remember', 'mode'], deny: ['reason'] };

function unknownKeys(verb: DecisionVerb, body: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(body).filter((key) => !bodyKeys[verb].includes(key));
  if (unknown.length === 0) return undefined;
  const names = unknown.map((key) => JSON.stringify(key)).join(', ');
  return `unknown key${unknown.length > 1 ? 's' : ''} ${names} in the ${verb} body (it takes ${bodyKeys[verb].join(', ')})`;
}

function decisionOf(verb: DecisionVerb, body: Record<string, unknown>): InspectorDecision | string {
  const unknown = unknownKeys(verb, body);
  if (unknown !== undefined) return unknown;
  if (verb === 'approve') {
    if (body.remember !== undefined && body.remember !== 'session') return '"remember" can only be "session"';
    // Accepting a plan (exit_plan_mode) may name the mode the agent continues in.
    if (body.mode !== undefined && !isPermissionMode(body.mode))
      return `"mode" must be one of ${permissionModes.join(', ')}`;
    return {
      approve: true,
      ...(body.remember === 'session' ? { remember: 'session' as const } : {}),
      ...(isPermissionMode(body.mode) ? { mode: body.mode } : {}),
    };
  }
  if (body.reason === undefined) return { approve: false };
  if (typeof body.reason !== 'string' || body.reason.length > maxReasonChars)
    return `"reason" must be a string of at most ${maxReasonChars} characters`;
  return { approve: false, reason: body.reason };
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim() || '{}';
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    // Not JSON: the caller answers 400.
    return undefined;
  }
}

function refuse(status: number, error: string): DecisionReply {
  return { status, body: { error } };
}

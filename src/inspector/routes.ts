// Everything the inspector's server reads from a request line, parsed once: a route it serves, or the
// status that refuses it. Nothing here throws, whatever bytes a client (or a page in the browser) sends.

export type DecisionVerb = 'approve' | 'deny';

export type Route =
  | { kind: 'page' }
  | { kind: 'events' }
  | { kind: 'agents' }
  | { kind: 'log'; agentId: string }
  | { kind: 'travel'; agentId: string; seq: number }
  | { kind: 'contexts'; agentId: string }
  | { kind: 'asset'; name: string }
  | { kind: 'decision'; agentId: string; callId: string; verb: DecisionVerb };

export type Refusal = { kind: 'refused'; status: number; message: string; allow?: string };

/** Longer request targets are refused before any decoding (Node's own header limit is 16 KiB). */
const maxTargetLength = 2048;

/** Decodes one percent-encoded path segment; undefined when its escapes are malformed (`%E0%A4%A`). */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A URIError is the answer here, not a failure: the caller refuses the request with 400.
    return undefined;
  }
}

/** The path of an origin-form request target (`/a/b?x`), or undefined for any other form. */
function pathOf(target: string): string | undefined {
  // The inspector is not a proxy: absolute-form (`http://…`), authority-form and `*` are not served.
  if (!target.startsWith('/') || target.startsWith('//')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

const refuse = (status: number, message: string, allow?: string): Refusal => ({
  kind: 'refused',
  status,
  message,
  ...(allow ? { allow } : {}),
});

/**
 * Matches a request to a route. `decisions` says whether the decision routes exist on this server;
 * without them a POST is refused like any other method but GET and HEAD.
 */
export function matchRoute(
  method: string | undefined,
  target: string | undefined,
  decisions: boolean,
): Route | Refusal {
  if (target === undefined || target.length > maxTargetLength) return refuse(414, 'request target too long');
  const path = pathOf(target);
  if (path === undefined) return refuse(400, 'bad request target');
  const segments = path.split('/').slice(1).map(decodeSegment);
  if (segments.some((segment) => segment === undefined))
    return refuse(400, 'malformed percent-encoding in the path');
  const parts = segments as string[];
  if (method === 'POST' && decisions) return decisionRoute(parts) ?? refuse(404, 'not found');
  const allow = decisions ? 'GET, HEAD, POST' : 'GET, HEAD';
  if (method !== 'GET' && method !== 'HEAD') return refuse(405, `method not allowed (${allow})`, allow);
  if (path === '/') return { kind: 'page' };
  if (path === '/events') return { kind: 'events' };
  if (path === '/api/agents') return { kind: 'agents' };
  const [api, agents, agentId, what, ...rest] = parts;
  if (api === 'assets' && agents && !agentId) return { kind: 'asset', name: agents };
  if (api !== 'api' || agents !== 'agents' || !agentId || rest.length > 0) return refuse(404, 'not found');
  if (what === 'log') return { kind: 'log', agentId };
  if (what === 'contexts') return { kind: 'contexts', agentId };
  if (what !== 'travel') return refuse(404, 'not found');
  const seq = /[?&]seq=(\d{1,9})(?:&|$)/.exec(target)?.[1];
  return seq === undefined
    ? refuse(400, 'travel needs ?seq=N')
    : { kind: 'travel', agentId, seq: Number(seq) };
}

/** `POST /api/agents/:agentId/calls/:callId/approve|deny`. */
function decisionRoute(parts: string[]): Route | undefined {
  const [api, agents, agentId, calls, callId, verb, ...rest] = parts;
  if (api !== 'api' || agents !== 'agents' || calls !== 'calls' || rest.length > 0) return undefined;
  if (!agentId || !callId || (verb !== 'approve' && verb !== 'deny')) return undefined;
  return { kind: 'decision', agentId, callId, verb };
}

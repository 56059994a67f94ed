import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { AgentSystem } from '../runtime/create-agent-system.ts';
import { pageAsset } from './assets.ts';
import { decide } from './decisions.ts';
import { LiveSource } from './live-source.ts';
import { inspectorPage } from './page.ts';
import type { InspectorSource } from './protocol.ts';
import { matchRoute } from './routes.ts';
import { SseClient, type SseClientStats } from './sse-client.ts';

export type InspectorOptions = {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only: the inspector shows prompts, code and tool output. Default `127.0.0.1`. */
  host?: '127.0.0.1' | 'localhost' | '::1';
  /** Per `/events` client: bytes held for a slow client before it is dropped and resynced (1 MiB). */
  maxQueuedBytes?: number;
  /** Called when an `/events` client connects or leaves, with the number now connected. */
  onClients?: (count: number) => void;
  /** The page title (default names the source). */
  title?: string;
  /**
   * Lets the page approve and deny calls that wait for approval (live systems with a `'manual'` approver).
   * Off by default: the inspector is read-only. When on, the page carries a per-server token that every
   * decision must send back, so other pages in the browser cannot answer for you.
   */
  decisions?: boolean;
  /**
   * Told about a request handler that failed (the client got a 500). Default: a process warning.
   * Contract: must not throw.
   */
  onError?: (error: unknown) => void;
};

/** A running inspector. Contract: `close()` ends every open stream, stops observing, and frees the port. */
export type InspectorServer = {
  url: string;
  close(): Promise<void>;
  /** One entry per connected `/events` client. */
  clients(): SseClientStats[];
};

/**
 * Serves the live inspector of an agent system on loopback: `GET /` the page, `GET /api/agents` every
 * agent's state tree, turns and last log events, `GET /api/agents/:id/log` one agent's whole log, and
 * `GET /events` a Server-Sent Events stream of inspection and live events. The system is observed only
 * while a page is connected. With `decisions`, also `POST /api/agents/:id/calls/:callId/approve|deny`.
 *
 * @example
 * const inspector = await startInspector(system, { port: 4777 });
 * console.log(`Inspector: ${inspector.url}`);
 * // …run agents…
 * await inspector.close();
 */
export function startInspector(
  system: AgentSystem,
  options: InspectorOptions = {},
): Promise<InspectorServer> {
  return serveInspector(new LiveSource(system, options.title), options);
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1']);

/** Serves any inspector source (a live system or a recorded log); see `startInspector`. */
export async function serveInspector(
  source: InspectorSource,
  options: InspectorOptions = {},
): Promise<InspectorServer> {
  const host = options.host ?? '127.0.0.1';
  if (!loopbackHosts.has(host))
    throw new ConfigError(`the inspector listens on loopback only, not "${host}"`);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError(`invalid port ${port}`);
  if (options.decisions && !source.decide)
    throw new ConfigError('approving from the inspector needs a live agent system, not a recording');
  // Not an id of the run and never logged: a secret for this server's page, so it comes from crypto.
  const token = options.decisions ? randomBytes(24).toString('base64url') : undefined;
  const page = inspectorPage(token);
  const clients = new Set<SseClient>();
  const maxQueuedBytes = options.maxQueuedBytes ?? 1024 * 1024;
  let hostHeaders = new Set<string>();

  const openStream = (request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    response.socket?.setNoDelay(true);
    // A client that vanishes mid-write ends its stream; an unheard 'error' would end the process.
    response.on('error', () => request.destroy());
    const client = new SseClient(response, {
      maxQueuedBytes,
      resync: () => ({ kind: 'snapshot', ...source.agents() }),
    });
    client.comment('agentchart inspector');
    // The snapshot and the subscription happen in one tick: no message can fall between them.
    client.send({ kind: 'snapshot', ...source.agents() });
    const unsubscribe = source.subscribe((message) => client.send(message));
    clients.add(client);
    options.onClients?.(clients.size);
    request.on('close', () => {
      unsubscribe();
      client.close();
      if (clients.delete(client)) options.onClients?.(clients.size);
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!hostHeaders.has(request.headers.host ?? '')) {
      // Refuses pages of other origins that reach this port through DNS rebinding.
      return sendText(response, 403, 'forbidden host');
    }
    const route = matchRoute(request.method, request.url, token !== undefined);
    switch (route.kind) {
      case 'refused':
        return sendText(response, route.status, route.message, route.allow ? { allow: route.allow } : {});
      case 'decision': {
        const reply = await decide(request, source, token!, route);
        return sendJson(response, reply.status, reply.body);
      }
      case 'page':
        return sendPage(response, page);
      case 'events':
        return openStream(request, response);
      case 'agents':
        return sendJson(response, 200, source.agents());
      case 'asset': {
        const asset = pageAsset(route.name);
        if (asset === undefined) return sendText(response, 404, 'not found');
        response.writeHead(200, { ...securityHeaders, 'content-type': 'text/javascript; charset=utf-8' });
        return void response.end(asset);
      }
      case 'travel':
        return answerTravel(response, source, route, onError);
      case 'contexts': {
        const contexts = source.contexts?.(route.agentId);
        return contexts
          ? sendJson(response, 200, contexts)
          : sendJson(response, 404, { error: 'no live agent with that id' });
      }
      case 'log': {
        const log = source.log(route.agentId);
        return log
          ? sendJson(response, 200, { events: log })
          : sendJson(response, 404, { error: 'no such agent' });
      }
    }
  };

  // No request may take the host process down: whatever the handler throws is answered with a 500 (or
  // ends the connection, if the answer had begun) and reported, never rethrown. `handle` is async, so a
  // synchronous throw arrives here as a rejection too.
  const onError = options.onError ?? reportError;
  const server = createServer((request, response) => {
    const fail = (error: unknown) => {
      // A client that left before it was answered is not a failure of the server.
      if (request.destroyed && request.errored) return void response.destroy();
      onError(error);
      if (!response.headersSent) sendText(response, 500, 'internal error');
      else response.destroy();
    };
    handle(request, response).catch(fail);
  });

  const address = await listen(server, port, host);
  const hostName = host === '::1' ? '[::1]' : host;
  hostHeaders = new Set(
    [hostName, '127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${address.port}`),
  );
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostName}:${address.port}/`,
    clients: () => [...clients].map((client) => ({ ...client.stats })),
    close: () => {
      closing ??= (async () => {
        for (const client of clients) client.close();
        clients.clear();
        await source.close();
        await new Promise<void>((resolve, reject) => {
          server.close((error) => (error ? reject(error) : resolve()));
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/** `GET /api/agents/:id/travel?seq=N`. A source that fails still answers with a note, never a bare 500. */
async function answerTravel(
  response: ServerResponse,
  source: InspectorSource,
  route: { agentId: string; seq: number },
  onError: (error: unknown) => void,
): Promise<void> {
  if (!source.travel) return sendJson(response, 404, { error: 'this source has no time travel' });
  let answer: unknown;
  try {
    answer = await source.travel(route.agentId, route.seq);
  } catch (error) {
    onError(error);
    const note = `time travel failed on the server: ${messageOf(error)}`;
    return sendJson(response, 500, { seq: route.seq, computedUpTo: -1, note, error: note });
  }
  return answer ? sendJson(response, 200, answer) : sendJson(response, 404, { error: 'no such agent' });
}

function reportError(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : messageOf(error);
  process.emitWarning(`agentchart inspector: a request failed: ${message}`);
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sendPage(response: ServerResponse, page: string): void {
  response.writeHead(200, {
    ...securityHeaders,
    'content-type': 'text/html; charset=utf-8',
    // The page loads its scripts from this server only; nothing may load from anywhere else.
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
  });
  response.end(page);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...securityHeaders, 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...securityHeaders, ...headers, 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

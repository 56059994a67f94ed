import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake server received it. */
export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
};

/**
 * What the server does for one request: stream SSE messages (pre-formatted, each ending in a blank line)
 * and then end, stay open until the client goes away, or destroy the socket; answer with a plain
 * HTTP error; or `stall`: never answer at all (not even headers).
 */
export type WireAction =
  | { type: 'sse'; messages: string[]; ending: 'end' | 'hang' | 'reset' }
  | { type: 'http'; status: number; headers?: Record<string, string>; body: unknown }
  | { type: 'stall' };

/**
 * A local HTTP server on 127.0.0.1 that answers requests from a queue of scripted actions.
 *
 * Contract: requests are answered in arrival order with the queued actions; with the queue empty it
 * asks `respond` (given to `startFakeServer`) or answers 500; every request body is recorded, parsed as
 * JSON; `close` cuts open streams.
 */
export interface FakeServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  enqueue(action: WireAction): void;
  /** Resolves once `count` requests have arrived (their bodies recorded). */
  whenRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server. `respond` answers the requests the queue has nothing for, from what they ask (for
 * concurrent clients, whose arrival order is not fixed); `undefined` from it is the 500 of an empty queue.
 */
export async function startFakeServer(
  respond?: (request: RecordedRequest) => WireAction | undefined,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const queue: WireAction[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      requests.push(recorded);
      const action = queue.shift() ??
        respond?.(recorded) ?? {
          type: 'http',
          status: 500,
          body: { error: { type: 'api_error', message: 'fake server: no scripted response left' } },
        };
      perform(action, response);
      for (const waiter of waiters.filter((entry) => requests.length >= entry.count)) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (action) => {
      queue.push(action);
    },
    whenRequests: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push({ count, resolve });
          }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function perform(action: WireAction, response: ServerResponse): void {
  if (action.type === 'stall') return;
  if (action.type === 'http') {
    response.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
    response.end(JSON.stringify(action.body));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // One write per message, so the client sees the stream arrive in pieces.
  for (const message of action.messages) response.write(message);
  if (action.ending === 'end') {
    response.end();
  } else if (action.ending === 'reset') {
    // Wait until the messages are flushed, then cut the connection with a TCP reset.
    response.write('', () => response.socket?.resetAndDestroy());
  }
  // 'hang': stays open; the client's abort or the server's close ends it.
}

/** An SSE message with an event name (Anthropic, Responses) or without one (Chat Completions). */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

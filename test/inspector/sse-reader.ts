// A Server-Sent Events client over node:http for the inspector tests: collects every message and lets a
// test wait for a condition on what has arrived so far.
import { type IncomingMessage, request } from 'node:http';
import type { InspectorMessage } from '../../src/inspector/protocol.ts';

export type SseReader = {
  readonly messages: InspectorMessage[];
  readonly response: IncomingMessage;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Resolves with the messages once `check` holds for them (checked on every new message). */
  until(check: (messages: InspectorMessage[]) => boolean): Promise<InspectorMessage[]>;
  close(): void;
};

export function connectEvents(baseUrl: string): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/events', baseUrl),
      { headers: { accept: 'text/event-stream' } },
      (response) => {
        const messages: InspectorMessage[] = [];
        const waiters: {
          check: (m: InspectorMessage[]) => boolean;
          done: (m: InspectorMessage[]) => void;
        }[] = [];
        let buffer = '';
        const ended = new Promise<void>((end) => response.on('close', () => end()));
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            cut = buffer.indexOf('\n\n');
            const data = frame
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice('data: '.length))
              .join('\n');
            if (data) messages.push(JSON.parse(data) as InspectorMessage);
          }
          for (const waiter of [...waiters]) {
            if (!waiter.check(messages)) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.done(messages);
          }
        });
        resolve({
          messages,
          response,
          ended,
          until: (check) =>
            check(messages)
              ? Promise.resolve(messages)
              : new Promise((done) => waiters.push({ check, done })),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function getJson<T>(baseUrl: string, path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(new URL(path, baseUrl));
  return { status: response.status, body: (await response.json()) as T };
}

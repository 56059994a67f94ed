// Raw HTTP/1.1 over a socket, for the inspector's boundary tests: `fetch` refuses to send most of what an
// attacker would (bad escapes, odd request targets, methods, missing headers), so these go byte for byte.
import { connect } from 'node:net';

export type RawReply = { status: number; headers: Record<string, string>; body: string };

/** Sends `head` (request line and headers, without the blank line) and `body`; resolves with the reply. */
export function rawRequest(port: number, head: string, body = ''): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const reply = parseReply(text);
      if (reply) resolve(reply);
      else
        reject(new Error(`no HTTP reply to ${JSON.stringify(head.slice(0, 80))}: ${JSON.stringify(text)}`));
    });
    socket.end(`${head}\r\nconnection: close\r\n\r\n${body}`, 'latin1');
  });
}

function parseReply(text: string): RawReply | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n/.exec(text);
  if (!match) return undefined;
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers, body: rest.join('\r\n\r\n') };
}

/** A `GET` with the Host header the inspector expects. */
export function getRaw(port: number, target: string, extra = ''): Promise<RawReply> {
  return rawRequest(port, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}${extra}`);
}

// The inspector's HTTP server as an attacker (or any page in the browser, through an <img> or a form)
// would meet it: bad percent-escapes, odd request targets, wrong methods, missing tokens, bad bodies. Every
// request gets a 4xx (or a 500 for a failing source) and the host process lives on. The process guard in
// the test setup fails a test during which anything escaped.
import { createServer } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InspectorSource } from '../../src/inspector/protocol.ts';
import { type InspectorServer, serveInspector, startInspector } from '../../src/inspector/server.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { startCliUntil } from '../support/child-run.ts';
import { GateProvider, GateTool, settle } from '../support/controllable.ts';
import { getRaw, rawRequest } from './raw-http.ts';

let system: AgentSystem;
let inspector: InspectorServer;
let port: number;
let token: string;

beforeAll(async () => {
  let n = 0;
  const model = new GateProvider();
  const tool = new GateTool('write', { access: 'write' });
  system = createAgentSystem({
    model,
    tools: [tool.tool],
    ids: () => `id${++n}`,
    projectInstructions: false,
    approve: 'manual',
  });
  inspector = await startInspector(system, { decisions: true });
  port = Number(new URL(inspector.url).port);
  const agent = await system.createAgent({ id: 'a1' });
  void agent.run('go');
  (await model.request(0)).toolCall('c1', 'write', { value: '1' }).done('tool_use');
  while (!agent.log().some((event) => event.type === 'approval.asked')) await settle();
  const html = await (await fetch(inspector.url)).text();
  token = /<meta name="agentchart-token" content="([^"]+)">/.exec(html)![1]!;
});

afterAll(async () => {
  await inspector.close();
  await system.dispose();
});

const post = (target: string, body: string, headers: string) =>
  rawRequest(
    port,
    `POST ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: ${Buffer.byteLength(body)}${headers}`,
    body,
  );
const json = '\r\ncontent-type: application/json';
const withToken = () => `${json}\r\nx-agentchart-token: ${token}`;

describe('inspector requests that must be refused, not crash the host', () => {
  const gets: [string, string, number][] = [
    ['a malformed escape in an agent id', '/api/agents/%E0%A4%A/log', 400],
    ['a lone percent sign', '/%', 400],
    ['an escape of invalid UTF-8', '/api/agents/%FF/log', 400],
    ['an absolute-form target', 'http://127.0.0.1/api/agents', 400],
    ['a target that is not a path', '*', 400],
    ['a protocol-relative target', '//evil.example/api/agents', 400],
    ['a long target', `/api/agents/${'a'.repeat(4_000)}/log`, 414],
    ['a target longer than Node accepts', `/${'b'.repeat(20_000)}`, 431],
    ['an unknown agent', '/api/agents/nobody/log', 404],
    ['a prototype key as agent id', '/api/agents/__proto__/log', 404],
    ['an encoded slash in an agent id', '/api/agents/a1%2Flog/log', 404],
    ['a path below the log', '/api/agents/a1/log/more', 404],
    ['an unknown path', '/etc/passwd', 404],
  ];
  it.each(gets)('GET with %s', async (_name, target, status) => {
    expect((await getRaw(port, target)).status).toBe(status);
  });

  it('answers other methods with 405 and says which are allowed', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
      const reply = await rawRequest(port, `${method} /api/agents HTTP/1.1\r\nhost: 127.0.0.1:${port}`);
      expect([method, reply.status, reply.headers.allow]).toEqual([method, 405, 'GET, HEAD, POST']);
    }
  });

  it('refuses a request without the expected Host header (DNS rebinding) before reading its path', async () => {
    const reply = await rawRequest(port, 'GET /api/agents/%E0%A4%A/log HTTP/1.1\r\nhost: evil.example');
    expect(reply.status).toBe(403);
  });

  const posts: [string, string, string, () => string, number][] = [
    ['a malformed escape in the agent id', '/api/agents/%E0%A4%A/calls/c1/approve', '{}', () => '', 400],
    ['a malformed escape in the call id', '/api/agents/a1/calls/%ZZ/deny', '{}', withToken, 400],
    ['no token', '/api/agents/a1/calls/c1/approve', '{}', () => json, 403],
    ['a wrong token', '/api/agents/a1/calls/c1/approve', '{}', () => `${json}\r\nx-agentchart-token: x`, 403],
    [
      'no content type',
      '/api/agents/a1/calls/c1/approve',
      '{}',
      () => `\r\nx-agentchart-token: ${token}`,
      415,
    ],
    ['a body that is not JSON', '/api/agents/a1/calls/c1/deny', '{"reason": ', withToken, 400],
    ['a JSON array', '/api/agents/a1/calls/c1/deny', '[1]', withToken, 400],
    ['JSON null', '/api/agents/a1/calls/c1/deny', 'null', withToken, 400],
    ['a reason that is not a string', '/api/agents/a1/calls/c1/deny', '{"reason":{"x":1}}', withToken, 400],
    [
      'a body over 4 KiB',
      '/api/agents/a1/calls/c1/deny',
      `{"reason":"${'r'.repeat(5_000)}"}`,
      withToken,
      400,
    ],
    ['an unknown verb', '/api/agents/a1/calls/c1/run', '{}', withToken, 404],
    ['an unknown call', '/api/agents/a1/calls/nope/approve', '{}', withToken, 409],
    ['an unknown agent', '/api/agents/nobody/calls/c1/approve', '{}', withToken, 404],
  ];
  it.each(posts)('POST with %s', async (_name, target, body, headers, status) => {
    expect((await post(target, body, headers())).status).toBe(status);
  });

  it('survives a client that goes away in the middle of a decision body', async () => {
    const { connect } = await import('node:net');
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /api/agents/a1/calls/c1/deny HTTP/1.1\r\nhost: 127.0.0.1:${port}${withToken()}\r\n` +
            'content-length: 100\r\n\r\n{"rea',
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    expect((await getRaw(port, '/api/agents')).status).toBe(200);
  });

  it('none of the above decided the waiting call', () => {
    const agent = system.list().find((candidate) => candidate.id === 'a1')!;
    expect(agent.log().filter((event) => event.type === 'approval.decided')).toEqual([]);
  });
});

describe('inspector request fuzzing', () => {
  const segment = fc.oneof(
    fc.string({ unit: fc.constantFrom('%', 'E', '0', 'A', '4', 'F', 'z', '/', '.', '_', '~', '?', '#') }),
    fc.string({ unit: 'grapheme-ascii' }).map((text) => encodeURIComponent(text)),
    fc.constantFrom(
      'api',
      'agents',
      'a1',
      'calls',
      'c1',
      'log',
      'approve',
      'deny',
      'events',
      '%',
      '%E0%A4%A',
    ),
  );
  const target = fc.array(segment, { minLength: 1, maxLength: 7 }).map((parts) => `/${parts.join('/')}`);
  const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE');
  const body = fc.oneof(fc.constant('{}'), fc.json(), fc.string({ maxLength: 64 }));

  it('every random request gets an answer below 500, and the waiting call stays undecided', async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(method, target, body, fc.boolean(), async (verb, path, text, authorised) => {
        // The event stream stays open by design; everything else must answer and close.
        fc.pre(!(path === '/events' && (verb === 'GET' || verb === 'HEAD')));
        requests++;
        // Approving for real is a valid request; the fuzz must not change the state the next run sees.
        const safeBody = /\/(approve|deny)$/.test(path) && authorised ? text.replace(/.*/s, '[]') : text;
        const reply = await rawRequest(
          port,
          `${verb} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: ${Buffer.byteLength(safeBody)}` +
            (authorised ? withToken() : json),
          safeBody,
        );
        expect(reply.status).toBeLessThan(500);
      }),
      { numRuns: 300, seed: 9 },
    );
    expect(requests).toBeGreaterThan(250);
    const agent = system.list().find((candidate) => candidate.id === 'a1')!;
    expect(agent.log().filter((event) => event.type === 'approval.decided')).toEqual([]);
  });
});

describe('a failing inspector source', () => {
  it('answers 500, reports the error to onError, and keeps serving', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const source: InspectorSource = {
      kind: 'recorded',
      agents: () => {
        if (fail) throw new Error('source broke');
        return { source: 'recorded', title: 't', agents: [] };
      },
      log: () => {
        throw new TypeError('log broke');
      },
      subscribe: () => () => {},
      close: async () => {},
    };
    const server = await serveInspector(source, { onError: (error) => errors.push(error) });
    try {
      const at = Number(new URL(server.url).port);
      expect((await getRaw(at, '/api/agents')).status).toBe(500);
      expect((await getRaw(at, '/api/agents/x/log')).status).toBe(500);
      fail = false;
      expect((await getRaw(at, '/api/agents')).status).toBe(200);
      expect(errors.map((error) => (error as Error).message)).toEqual(['source broke', 'log broke']);
    } finally {
      await server.close();
    }
  });
});

/** A port that was free a moment ago, for a child process that needs a fixed one. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return free;
}

describe('agentchart inspect FILE as a process', () => {
  it('answers a malformed escape with 400 and keeps running', async () => {
    const at = await freePort();
    const file = 'test/fixtures/replay/parallel-retry-unknown.jsonl';
    // Ready when it says where it listens (a loaded machine may take long to load the CLI from source).
    const child = await startCliUntil(['inspect', file, '--port', String(at)], '(Ctrl-C stops it)', {
      timeoutMs: 120_000,
    });
    expect((await getRaw(at, '/api/agents/%E0%A4%A/log')).status).toBe(400);
    expect((await getRaw(at, '/api/agents')).status).toBe(200);
    // Still alive: stop it as a person would, with Ctrl-C, and it exits cleanly.
    child.kill('SIGINT');
    const run = await child.done;
    expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: 0, timedOut: false });
  });
});

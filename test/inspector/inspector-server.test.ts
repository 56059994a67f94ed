// The inspector's HTTP server around a live system: the page, one agent's log, the Host check, and
// observing the system only while a page is connected.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorCharts } from '../../src/diagrams/chart-graph.ts';
import { settle } from '../support/controllable.ts';
import { closeOpened, connect, heldTurn, setup } from './live-setup.ts';
import { getJson } from './sse-reader.ts';

afterEach(closeOpened);

describe('inspector server', () => {
  it('serves a self-contained HTML page with its script', async () => {
    const { inspector } = await setup();
    const response = await fetch(inspector.url);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // The charts' graphs, read from the machines, so the page draws and lights them.
    const charts = JSON.parse(
      /<script type="application\/json" id="charts">(.*?)<\/script>/s.exec(html)![1]!,
    );
    expect(charts).toEqual(JSON.parse(JSON.stringify(inspectorCharts())));
    expect(charts.batch.nodes.map((node: { id: string }) => node.id)).toContain('running');
    // Its scripts come from this server: the page's modules and the layout library from node_modules.
    const main = await fetch(new URL('/assets/main.js', inspector.url));
    expect(main.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await main.text()).toContain('connect();');
    const core = await (await fetch(new URL('/assets/core.js', inspector.url))).text();
    expect(core).toContain("new EventSource('/events')");
    const dagre = await (await fetch(new URL('/assets/dagre.js', inspector.url))).text();
    expect(dagre).toContain('var dagre=');
    expect((await fetch(new URL('/assets/nope.js', inspector.url))).status).toBe(404);
    // Works offline: nothing is loaded from another address.
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
  });

  it('serves one agent log, 404 for an unknown agent, and refuses a foreign Host header', async () => {
    const s = await setup();
    const { agent } = await heldTurn(s);
    const log = await getJson<{ events: { seq: number; type: string }[] }>(
      s.inspector.url,
      '/api/agents/a1/log',
    );
    expect(log.body.events.map((event) => event.type)).toEqual(agent.log().map((event) => event.type));
    expect((await getJson(s.inspector.url, '/api/agents/nobody/log')).status).toBe(404);
    // fetch may not set Host; node:http can, as a DNS-rebinding page's browser would.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        new URL('/api/agents', s.inspector.url),
        { headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('observes the system only while a page is connected, and close() ends every stream', async () => {
    const s = await setup();
    const inspect = s.system.inspect.bind(s.system);
    let observers = 0;
    s.system.inspect = (observer) => {
      observers++;
      const stop = inspect(observer);
      return () => {
        observers--;
        stop();
      };
    };
    expect(observers).toBe(0);
    const first = await connect(s.inspector.url);
    expect(observers).toBe(1);
    first.close();
    await first.ended;
    while (observers > 0) await settle();
    const readers = [await connect(s.inspector.url), await connect(s.inspector.url)];
    expect(observers).toBe(1);
    expect(s.inspector.clients()).toHaveLength(2);
    await s.inspector.close();
    await Promise.all(readers.map((reader) => reader.ended));
    expect(observers).toBe(0);
    expect(s.inspector.clients()).toEqual([]);
    // The system goes on without its inspector.
    const { result } = await heldTurn(s);
    expect(result.reason).toBe('completed');
  });
});

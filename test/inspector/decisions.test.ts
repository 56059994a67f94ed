// Approving and denying from the inspector page, over HTTP: only with `decisions` on, only with the
// page's token, only for a call that waits for approval right now; the decision lands in the log as the
// user's, and the turn goes on.
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { pageAsset } from '../../src/inspector/assets.ts';
import { inspectorPage } from '../../src/inspector/page.ts';
import { RecordedSource } from '../../src/inspector/recorded-source.ts';
import { type InspectorServer, serveInspector, startInspector } from '../../src/inspector/server.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import { gatedSystem, settle } from '../support/controllable.ts';
import { fieldsOf } from '../support/log-fields.ts';

const open: { system?: AgentSystem; inspector?: InspectorServer } = {};
afterEach(async () => {
  await open.inspector?.close();
  await open.system?.dispose();
  open.inspector = undefined;
  open.system = undefined;
});

/** An agent whose first step asks for two `write` calls that need approval (mode `default`, manual approver). */
async function waitingAgent(decisions: boolean) {
  const { model, tool, system } = gatedSystem('write', 'write', {
    permissionMode: 'default',
    approve: 'manual',
  });
  open.system = system;
  const inspector = await startInspector(system, { decisions });
  open.inspector = inspector;
  const agent = await system.createAgent({ id: 'a1' });
  const run = agent.run('go');
  (await model.request(0))
    .toolCall('c1', 'write', { value: '1' })
    .toolCall('c2', 'write', { value: '2' })
    .done('tool_use');
  await until(agent, (types) => types.includes('approval.asked'));
  return { model, tool, inspector, agent, run };
}

/** Waits until the agent's log satisfies `done`; gives up with an error (a test then fails, never goes on). */
async function until(agent: Agent, done: (types: string[]) => boolean): Promise<void> {
  const reached = () => done(agent.log().map((event) => event.type));
  for (let i = 0; i < 200 && !reached(); i++) await settle();
  if (!reached()) throw new Error(`the log never got there: ${agent.log().map((event) => event.type)}`);
}

async function pageToken(url: string): Promise<string | undefined> {
  const html = await (await fetch(url)).text();
  return /<meta name="agentchart-token" content="([^"]+)">/.exec(html)?.[1];
}

function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  }));
}

const decided = (agent: Agent) => fieldsOf(agent.log(), 'approval.decided', 'callId', 'outcome', 'by');

describe('inspector decisions', () => {
  it('approves (for the session) and denies through the page, as the user; the turn goes on', async () => {
    const { inspector, agent, tool, model, run } = await waitingAgent(true);
    const token = (await pageToken(inspector.url))!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const headers = { 'x-agentchart-token': token };

    // c2 waits behind c1 (a call that needs approval is a barrier): it is not waiting yet.
    expect(await post(inspector.url, '/api/agents/a1/calls/c2/approve', {}, headers)).toEqual({
      status: 409,
      body: { error: 'call "c2" is not waiting for approval' },
    });
    expect(
      await post(inspector.url, '/api/agents/a1/calls/c1/approve', { remember: 'session' }, headers),
    ).toEqual({
      status: 200,
      body: { ok: true },
    });
    while (!tool.running.has('c1')) await settle();
    tool.finish('c1');
    // c2 was checked before the session allowance existed, so it still asks.
    await until(agent, (types) => types.filter((type) => type === 'approval.asked').length === 2);
    expect(
      await post(inspector.url, '/api/agents/a1/calls/c2/deny', { reason: 'not that file' }, headers),
    ).toEqual({
      status: 200,
      body: { ok: true },
    });
    (await model.request(1)).answer('Understood.');
    expect(await run).toMatchObject({ reason: 'completed' });
    expect(decided(agent)).toEqual([
      ['c1', 'allow_session', 'user'],
      ['c2', 'deny', 'user'],
    ]);
    const denied = agent.log().find((event) => event.type === 'tool.result' && event.data.callId === 'c2');
    expect(denied?.data).toMatchObject({ outcome: 'denied', content: 'Permission denied: not that file' });
  });

  it('refuses a missing or wrong token, a bad body, and an unknown agent, and changes nothing', async () => {
    const { inspector, agent } = await waitingAgent(true);
    const token = (await pageToken(inspector.url))!;
    const path = '/api/agents/a1/calls/c1/approve';
    expect((await post(inspector.url, path, {})).status).toBe(403);
    expect((await post(inspector.url, path, {}, { 'x-agentchart-token': 'guess' })).status).toBe(403);
    const headers = { 'x-agentchart-token': token };
    expect(await post(inspector.url, path, { remember: 'forever' }, headers)).toEqual({
      status: 400,
      body: { error: '"remember" can only be "session"' },
    });
    expect(await post(inspector.url, path, { mode: 'loose' }, headers)).toEqual({
      status: 400,
      body: { error: '"mode" must be one of plan, default, accept-edits, bypass' },
    });
    // A key the route does not know is refused by name, never read as a plain approve or deny.
    expect(await post(inspector.url, path, { approve: false }, headers)).toEqual({
      status: 400,
      body: { error: 'unknown key "approve" in the approve body (it takes remember, mode)' },
    });
    expect(
      await post(inspector.url, path, { mode: 'plan', because: 'x', remeber: 'session' }, headers),
    ).toEqual({
      status: 400,
      body: { error: 'unknown keys "because", "remeber" in the approve body (it takes remember, mode)' },
    });
    expect(await post(inspector.url, '/api/agents/a1/calls/c1/deny', { mode: 'plan' }, headers)).toEqual({
      status: 400,
      body: { error: 'unknown key "mode" in the deny body (it takes reason)' },
    });
    expect((await post(inspector.url, path, ['not', 'an', 'object'], headers)).status).toBe(400);
    const plain = await fetch(new URL(path, inspector.url), { method: 'POST', headers, body: '{}' });
    expect(plain.status).toBe(415);
    expect(await post(inspector.url, '/api/agents/nobody/calls/c1/approve', {}, headers)).toEqual({
      status: 404,
      body: { error: 'no live agent "nobody"' },
    });
    expect(decided(agent)).toEqual([]);
  });

  it('is read-only by default: no token on the page and POST is refused', async () => {
    const { inspector, agent } = await waitingAgent(false);
    expect(await pageToken(inspector.url)).toBeUndefined();
    const response = await fetch(new URL('/api/agents/a1/calls/c1/approve', inspector.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(405);
    expect(decided(agent)).toEqual([]);
  });

  it('cannot be turned on for a recorded session', async () => {
    const source = new RecordedSource([], 'recorded');
    await expect(serveInspector(source, { decisions: true })).rejects.toThrow(/needs a live agent system/);
  });
});

describe('inspector page', () => {
  it('its scripts parse as JavaScript modules, and carry the token only when decisions are on', () => {
    // Every module main.js reaches through its imports is served and parses.
    const reached = new Set<string>();
    const pending = ['main.js'];
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      const script = pageAsset(name);
      expect(script, `${name} is served`).toBeTypeOf('string');
      const { diagnostics } = ts.transpileModule(script!, { reportDiagnostics: true, fileName: name });
      expect(diagnostics?.map((diagnostic) => diagnostic.messageText)).toEqual([]);
      for (const [, imported] of script!.matchAll(/from '\.\/([\w-]+\.js)'/g)) pending.push(imported!);
    }
    expect([...reached].sort()).toEqual([
      'agents.js',
      'board-view.js',
      'board.js',
      'chart-layout.js',
      'chart-view.js',
      'chart.js',
      'core.js',
      'main.js',
      'panels.js',
      'travel.js',
      'tree.js',
      'vendor.js',
      'views.js',
    ]);
    expect(pageAsset('panels.js')).toContain('export function decisionButtons');
    expect(inspectorPage('t0ken')).toContain('<meta name="agentchart-token" content="t0ken">');
    expect(inspectorPage()).not.toContain('agentchart-token');
  });
});

// MCP servers as stages of an agent's life: started once per agent while it is created (a server that
// fails to start rolls the creation back and stops the ones that started), shared with its subagents, and
// closed by dispose, which waits until their processes are gone.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServerError } from '../../src/errors/mcp-server-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { isEvent } from '../../src/session/types.ts';
import { taskTool } from '../../src/tools/task.ts';
import { faultServer, isAlive, startedPids, tempDir } from '../support/mcp-servers.ts';
import { mcpRig, results } from './mcp-kit.ts';

/**
 * A system whose agents start two fault servers, `first` healthy and `second` started with `secondStart`
 * (FAULT_START); each writes its start lines to its own log file in a new folder.
 */
async function twoServers(secondStart: 'exit' | 'hang') {
  const dir = await tempDir('fault');
  const first = join(dir, 'first.log');
  const second = join(dir, 'second.log');
  const store = memoryStore();
  const system = createAgentSystem({
    model: scripted([]),
    store,
    cwd: dir,
    projectInstructions: false,
    mcpServers: { first: faultServer(first), second: faultServer(second, { FAULT_START: secondStart }) },
    approve: 'deny',
  });
  return { first, second, store, system };
}

describe('creating an agent with MCP servers', () => {
  it('rolls back when the second server fails to start: the first is stopped, nothing stays', async () => {
    const { first, second, store, system } = await twoServers('exit');
    try {
      const creation = system.createAgent({ id: 'a' });
      await expect(creation).rejects.toThrow(McpServerError);
      const error = (await creation.catch((caught: unknown) => caught)) as McpServerError;
      expect([error.server, error.code]).toEqual(['second', 'mcp_server']);
      expect(error.message).toMatch(
        /^MCP server "second" did not start: .*\nIts stderr:\nfault-server: refusing/s,
      );
      const [pid] = startedPids(first);
      expect(pid).toBeGreaterThan(0);
      expect(isAlive(pid!)).toBe(false);
      expect(startedPids(second)).toEqual([]);
      // Nothing registered, nothing written: the session that the first stage created is gone.
      expect(system.list()).toEqual([]);
      expect(await store.list()).toEqual([]);
    } finally {
      await system.dispose();
    }
  });

  it('a dispose while a server is starting stops the start: no wait for the handshake timeout, nothing stays', async () => {
    // The handshake would wait 30 s for the silent server, past this test's limit: only the abort ends it.
    const { first: fast, second: hung, store, system } = await twoServers('hang');
    const creation = system.createAgent({ id: 'a' });
    const outcome = creation.catch((caught: unknown) => caught);
    while (startedPids(hung).length === 0 || startedPids(fast).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await system.dispose();
    const error = (await outcome) as Error;
    expect(error.message).toBe(
      'agent a was not created: it was disposed while its MCP servers were starting',
    );
    // Both processes are gone once dispose returns: the started one closed, the silent one stopped.
    expect([...startedPids(fast), ...startedPids(hung)].map(isAlive)).toEqual([false, false]);
    expect(system.list()).toEqual([]);
    expect(await store.list()).toEqual([]);
  });

  it('dispose closes the servers and returns once their processes have exited', async () => {
    const dir = await tempDir('fault');
    const logs = [join(dir, 'one.log'), join(dir, 'two.log')];
    const rig = await mcpRig({ one: faultServer(logs[0]!), two: faultServer(logs[1]!) }, [
      { toolCalls: [{ id: 'c', name: 'mcp__one__echo', input: { text: 'hi' } }] },
      { text: 'Done.' },
    ]);
    await rig.agent.run('Echo.');
    const pids = logs.flatMap(startedPids);
    expect(pids).toHaveLength(2);
    expect(
      rig.agent
        .mcpServers()
        .map((server) => server.pid)
        .sort(),
    ).toEqual([...pids].sort());
    expect(pids.map(isAlive)).toEqual([true, true]);
    await rig.agent.dispose();
    expect(pids.map(isAlive)).toEqual([false, false]);
    expect(rig.agent.mcpServers().map((server) => server.state)).toEqual(['closed', 'closed']);
    // The log ends with session.end: closing the servers logged nothing after it.
    expect(rig.agent.log().at(-1)!.type).toBe('session.end');
    await rig.system.dispose();
  });

  it('starts servers once per agent; subagents share their parent’s connection and tools', async () => {
    const dir = await tempDir('fault');
    const logFile = join(dir, 'fault.log');
    const rig = await mcpRig(
      { fault: faultServer(logFile) },
      [
        {
          toolCalls: [
            {
              id: 't',
              name: 'task',
              input: { description: 'echo it', prompt: 'Echo.', tools: ['mcp__fault__echo'] },
            },
          ],
        },
        // The child's two requests, then the parent's last.
        { toolCalls: [{ id: 'child-echo', name: 'mcp__fault__echo', input: { text: 'from child' } }] },
        { text: 'Echoed.' },
        { text: 'Done.' },
      ],
      { tools: [taskTool()] },
    );
    try {
      await rig.agent.run('Delegate.');
      expect(startedPids(logFile)).toHaveLength(1);
      const spawned = rig.agent.log().find((event) => isEvent(event, 'agent.spawned'));
      const childId = isEvent(spawned!, 'agent.spawned') ? spawned.data.childSessionId : '';
      const child = await rig.system.store.load(childId);
      expect(results(child.events)['child-echo']).toEqual(['ok', 'from child']);
      // The child was offered only what it asked for of the parent's tools.
      expect(rig.model.requests[1]!.tools.map((tool) => tool.name)).toEqual(['mcp__fault__echo']);
      const second = await rig.system.createAgent({ id: 'b' });
      expect(startedPids(logFile)).toHaveLength(2);
      await second.dispose();
    } finally {
      await rig.system.dispose();
    }
    expect(startedPids(logFile).map(isAlive)).toEqual([false, false]);
  });

  it('a bad mcpServers value is a ConfigError naming it', async () => {
    const model = scripted([]);
    expect(() => createAgentSystem({ model, mcpServers: { 'bad name': { command: 'x' } } })).toThrow(
      'createAgentSystem: mcpServers.bad name is not a usable server name: use 1-32 letters, digits, "_" or "-", without "__"',
    );
    expect(() => createAgentSystem({ model, mcpServers: { a: { command: '' } } })).toThrow(
      'createAgentSystem: mcpServers.a.command must be a non-empty string, got ""',
    );
    expect(() => createAgentSystem({ model, mcpServers: { a: { url: 'ftp://x' } } })).toThrow(
      'createAgentSystem: mcpServers.a.url must be an http:// or https:// URL, got "ftp://x"',
    );
    expect(() =>
      createAgentSystem({ model, mcpServers: { a: { command: 'x', args: 'y' } as never } }),
    ).toThrow('createAgentSystem: mcpServers.a.args must be an array of strings, got "y"');
    const system = createAgentSystem({ model });
    await expect(system.createAgent({ mcpServers: { a: 5 } as never })).rejects.toThrow(
      'createAgent: options.mcpServers.a must be { command, args?, env?, cwd? } or { url, headers? }, got 5',
    );
  });
});

// Fault cases against agentchart's own MCP server (test/fixtures/mcp/fault-server.mjs, built with the SDK):
// a crash in the middle of a call, reconnecting on the injected clock and giving up after bounded retries,
// a call that hangs until it is cancelled or times out (the server sees the cancellation), a tool whose
// schema cannot be compiled, an isError result, and a tool list that changes between steps.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reconnectPolicy } from '../../src/mcp/mcp-servers.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { faultLines, faultServer, tempDir } from '../support/mcp-servers.ts';
import { mcpRig, results, until } from './mcp-kit.ts';

const statuses = (log: readonly LogEvent[]) =>
  log.filter((event) => isEvent(event, 'mcp.status')).map((event) => event.data.state);

describe('an MCP server that crashes mid-session', () => {
  it('ends the running call with an error, answers "unavailable", then reconnects on the clock', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile) }, [
      { toolCalls: [{ id: 'crash', name: 'mcp__fault__crash', input: {} }] },
      { toolCalls: [{ id: 'while-down', name: 'mcp__fault__echo', input: { text: 'x' } }] },
      { text: 'It went down.' },
      { toolCalls: [{ id: 'after', name: 'mcp__fault__echo', input: { text: 'back' } }] },
      { text: 'It is back.' },
    ]);
    try {
      await rig.agent.run('Crash it.');
      const first = results(rig.agent.log());
      expect(first.crash![0]).toBe('error');
      expect(first.crash![1]).toMatch(/^MCP server "fault" stopped during the call: /);
      expect(first['while-down']).toEqual([
        'error',
        'MCP server "fault" is unavailable: it is disconnected (the connection closed). Its tools answer again once it is reconnected.',
      ]);
      expect(statuses(rig.agent.log())).toEqual(['disconnected']);
      expect(rig.agent.mcpServers()[0]!.state).toBe('disconnected');
      // The first retry is due after the base delay on the injected clock, not before.
      rig.clock.advance(reconnectPolicy.baseDelayMs - 1);
      expect(statuses(rig.agent.log())).toEqual(['disconnected']);
      rig.clock.advance(1);
      await until(() => rig.agent.mcpServers()[0]!.state === 'connected', 'the reconnect');
      expect(statuses(rig.agent.log())).toEqual(['disconnected', 'reconnecting', 'connected']);
      await rig.agent.run('Again.');
      expect(results(rig.agent.log()).after).toEqual(['ok', 'back']);
      expect(faultLines(logFile).filter((line) => line.startsWith('started'))).toHaveLength(2);
    } finally {
      await rig.system.dispose();
    }
  });

  it('gives up after the bounded retries with backoff, and its tools stay unavailable', async () => {
    const dir = await tempDir('fault');
    const logFile = join(dir, 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile, { FAULT_ONCE: join(dir, 'once') }) }, [
      { toolCalls: [{ id: 'crash', name: 'mcp__fault__crash', input: {} }] },
      { text: 'Down.' },
      { toolCalls: [{ id: 'late', name: 'mcp__fault__echo', input: { text: 'x' } }] },
      { text: 'Still down.' },
    ]);
    try {
      await rig.agent.run('Crash it.');
      for (let attempt = 0; attempt < reconnectPolicy.maxAttempts; attempt++) {
        const before = statuses(rig.agent.log()).length;
        rig.clock.advance(reconnectPolicy.baseDelayMs * 2 ** attempt);
        // Each attempt starts the server again, which refuses (FAULT_ONCE); the next waits twice as long.
        await until(() => statuses(rig.agent.log()).length > before, `attempt ${attempt + 1}`);
        await until(() => rig.agent.mcpServers()[0]!.state !== 'reconnecting', `attempt ${attempt + 1} ends`);
      }
      const retries = Array.from({ length: reconnectPolicy.maxAttempts - 1 }, () => [
        'reconnecting',
        'disconnected',
      ]).flat();
      expect(statuses(rig.agent.log())).toEqual(['disconnected', ...retries, 'reconnecting', 'failed']);
      await rig.agent.run('Try again.');
      expect(results(rig.agent.log()).late![1]).toMatch(/^MCP server "fault" is unavailable: it is failed/);
    } finally {
      await rig.system.dispose();
    }
  });
});

describe('a call that hangs', () => {
  it('a cancel sends notifications/cancelled to the server and the call gets aborted', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile) }, [
      { toolCalls: [{ id: 'hang', name: 'mcp__fault__hang', input: {} }] },
    ]);
    try {
      const running = rig.agent.run('Hang.');
      await until(() => faultLines(logFile).some((line) => line.startsWith('hanging')), 'the call to arrive');
      rig.agent.cancel();
      expect((await running).reason).toBe('canceled');
      expect(results(rig.agent.log()).hang![0]).toBe('aborted');
      await until(() => faultLines(logFile).some((line) => line.startsWith('cancelled')), 'the cancellation');
    } finally {
      await rig.system.dispose();
    }
  });

  it("the runtime's per-tool timeout (on the injected clock) ends it as timeout and cancels it on the server", async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile) }, [
      { toolCalls: [{ id: 'hang', name: 'mcp__fault__hang', input: {} }] },
      { text: 'It timed out.' },
    ]);
    try {
      const running = rig.agent.run('Hang.');
      await until(() => faultLines(logFile).some((line) => line.startsWith('hanging')), 'the call to arrive');
      rig.clock.advance(600_000);
      await until(() => results(rig.agent.log()).hang !== undefined, 'the result');
      rig.clock.advance(1_000);
      expect((await running).reason).toBe('completed');
      expect(results(rig.agent.log()).hang![0]).toBe('timeout');
      await until(() => faultLines(logFile).some((line) => line.startsWith('cancelled')), 'the cancellation');
    } finally {
      await rig.system.dispose();
    }
  });
});

describe('what a server lists and answers', () => {
  it('skips a tool whose schema cannot be compiled, offers the rest, and reads isError as an error', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile) }, [
      { toolCalls: [{ id: 'fail', name: 'mcp__fault__fail', input: {} }] },
      { text: 'Failed.' },
    ]);
    try {
      await rig.agent.run('Fail.');
      const [status] = rig.agent.mcpServers();
      expect(status!.tools.map((tool) => tool.name)).toEqual([
        'mcp__fault__echo',
        'mcp__fault__crash',
        'mcp__fault__hang',
        'mcp__fault__add_tool',
        'mcp__fault__fail',
      ]);
      expect(status!.skipped).toEqual([
        { tool: 'bad_schema', reason: expect.stringMatching(/^its input schema cannot be used: /) },
      ]);
      expect(rig.model.requests[0]!.tools.map((tool) => tool.name)).not.toContain('mcp__fault__bad_schema');
      expect(results(rig.agent.log()).fail).toEqual(['error', 'it failed on purpose']);
    } finally {
      await rig.system.dispose();
    }
  });

  it('a changed tool list is logged as mcp.tools and offered from the next step', async () => {
    const logFile = join(await tempDir('fault'), 'fault.log');
    const rig = await mcpRig({ fault: faultServer(logFile) }, [
      { toolCalls: [{ id: 'add', name: 'mcp__fault__add_tool', input: { name: 'later' } }] },
      { text: 'Added.' },
      { toolCalls: [{ id: 'use', name: 'mcp__fault__later', input: {} }] },
      { text: 'Used.' },
    ]);
    try {
      await rig.agent.run('Add a tool.');
      // The new list arrives after the call's answer: it is applied at the step after that (in this turn,
      // or the first step of the next).
      const applied = () => rig.agent.log().some((event) => isEvent(event, 'mcp.tools'));
      await until(() => rig.agent.mcpServers()[0]!.listChanged || applied(), 'the new list');
      await rig.agent.run('Use it.');
      expect(results(rig.agent.log()).use).toEqual(['ok', 'ran later']);
      const log = rig.agent.log();
      const change = log.findIndex((event) => isEvent(event, 'mcp.tools'));
      const next = log[change + 1]!;
      expect([next.type, next.turn, next.step]).toEqual(['step.start', log[change]!.turn, log[change]!.step]);
      expect(isEvent(next, 'step.start') && next.data.toolNames).toContain('mcp__fault__later');
      // Requests before the change did not offer the tool; the request of that step and later ones do.
      const starts = log.filter((event) => isEvent(event, 'step.start'));
      const at = starts.findIndex((start) => start.seq === next.seq);
      const offered = rig.model.requests.map((request) =>
        request.tools.some((tool) => tool.name === 'mcp__fault__later'),
      );
      expect(offered).toEqual(starts.map((_, index) => index >= at));
      expect(isEvent(starts[0]!, 'step.start') && starts[0].data.systemHash).not.toBe(
        isEvent(next, 'step.start') && next.data.systemHash,
      );
    } finally {
      await rig.system.dispose();
    }
  });
});

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AgentsPayload, InspectorMessage, InspectorSource } from '../../src/inspector/protocol.ts';
import { serveInspector } from '../../src/inspector/server.ts';
import { SseClient, sseFrame } from '../../src/inspector/sse-client.ts';
import { settle } from '../support/controllable.ts';
import { connectEvents } from './sse-reader.ts';

/** A socket that accepts one frame and then reports itself full until the test drains it. */
class FullSink extends EventEmitter {
  readonly frames: string[] = [];
  full = true;
  write(chunk: string): boolean {
    this.frames.push(chunk);
    return !this.full;
  }
  end(): void {}
  drain(): void {
    this.full = false;
    this.emit('drain');
  }
}

const snapshot: InspectorMessage = { kind: 'snapshot', source: 'live', title: 't', agents: [] };
const big = (n: number): InspectorMessage => ({
  kind: 'error',
  agentId: 'a',
  message: `${n} ${'x'.repeat(500)}`,
});
const parse = (frame: string) => JSON.parse(frame.slice('data: '.length)) as InspectorMessage;

describe('SSE client queue', () => {
  it('never holds more than its cap for a client that stops reading, then resyncs it', () => {
    const sink = new FullSink();
    const cap = 8 * 1024;
    const client = new SseClient(sink, { maxQueuedBytes: cap, resync: () => snapshot });
    for (let n = 0; n < 10_000; n++) {
      client.send(big(n));
      expect(client.stats.queuedBytes).toBeLessThanOrEqual(cap);
    }
    expect(sink.frames).toHaveLength(1);
    expect(client.stats.peakQueuedBytes).toBeLessThanOrEqual(cap);
    expect(client.stats.peakQueuedBytes).toBeGreaterThan(cap - sseFrame(big(0)).length - 10);
    expect(client.stats.dropped).toBe(9_999);
    sink.drain();
    expect(sink.frames.slice(1).map(parse)).toEqual([{ kind: 'reset', dropped: 9_999 }, snapshot]);
    client.send(big(10_000));
    expect(parse(sink.frames.at(-1)!)).toEqual(big(10_000));
    expect(client.stats).toMatchObject({ queuedBytes: 0, resets: 1 });
  });

  it('merges the deltas of one step while the client is behind, in order with other messages', () => {
    const sink = new FullSink();
    const client = new SseClient(sink, { maxQueuedBytes: 1024 * 1024, resync: () => snapshot });
    client.send(snapshot);
    const delta = (step: number, text: string): InspectorMessage => ({
      kind: 'delta',
      agentId: 'a',
      turn: 1,
      step,
      text,
      thinking: false,
    });
    for (let n = 0; n < 1_000; n++) client.send(delta(1, 'ab'));
    client.send(big(1));
    client.send(delta(2, 'c'));
    client.send(delta(2, 'd'));
    expect(client.stats.queuedBytes).toBeLessThan(3_000);
    sink.drain();
    expect(sink.frames.slice(1).map(parse)).toEqual([delta(1, 'ab'.repeat(1_000)), big(1), delta(2, 'cd')]);
  });
});

/** A source the test pushes messages through. */
class PushSource implements InspectorSource {
  readonly kind = 'live';
  readonly listeners = new Set<(message: InspectorMessage) => void>();
  agents(): AgentsPayload {
    return { source: 'live', title: 'push', agents: [] };
  }
  log() {
    return undefined;
  }
  subscribe(listener: (message: InspectorMessage) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(message: InspectorMessage): void {
    for (const listener of this.listeners) listener(message);
  }
  async close(): Promise<void> {}
}

describe('slow client over HTTP', () => {
  it('bounds what the server holds for a client that does not read, and resyncs it when it reads again', async () => {
    const source = new PushSource();
    const cap = 64 * 1024;
    const server = await serveInspector(source, { port: 0, maxQueuedBytes: cap });
    try {
      const reader = await connectEvents(server.url);
      await reader.until((messages) => messages.length > 0);
      reader.response.pause();
      // 64 MB: far more than the socket buffers of both ends can absorb.
      const chunk = 'y'.repeat(64 * 1024);
      for (let n = 0; n < 1_024; n++) {
        source.push({ kind: 'error', agentId: 'a', message: `${n} ${chunk}` });
        if (n % 64 === 0) await settle(1);
      }
      const [stats] = server.clients();
      expect(stats!.peakQueuedBytes).toBeLessThanOrEqual(cap);
      expect(stats!.dropped).toBeGreaterThan(0);
      reader.response.resume();
      // The client may fall behind more than once while the flood drains (what it misses meanwhile is
      // dropped); once it has caught up, new messages reach it again.
      const isPing = (m: InspectorMessage | undefined) => m?.kind === 'error' && m.message === 'ping';
      let messages = reader.messages;
      while (!isPing(messages.at(-1))) {
        source.push({ kind: 'error', agentId: 'a', message: 'ping' });
        await settle(2);
        messages = reader.messages;
      }
      const resets = messages.flatMap((m, index) => (m.kind === 'reset' ? [index] : []));
      expect(resets.length).toBeGreaterThan(0);
      for (const index of resets) {
        expect(messages[index + 1]).toEqual({ kind: 'snapshot', source: 'live', title: 'push', agents: [] });
      }
      expect(server.clients()[0]!.peakQueuedBytes).toBeLessThanOrEqual(cap);
      reader.close();
    } finally {
      await server.close();
    }
  });
});

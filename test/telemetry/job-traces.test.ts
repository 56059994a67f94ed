// Traces beyond one agent: a job run in this process is one span with its tasks' agents under it (a task's
// agent resumed by a supervised restart too); a provider registered globally (an SDK's register()) is used
// without the option; `telemetry: false` and no provider make no spans; bad values are refused where they
// enter.
import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { SessionStore } from '../../src/session/types.ts';
import { spanTree } from '../support/otlp-receiver.ts';
import { startTracedBackend, type TracedBackend } from '../support/traced-provider.ts';

let backend: TracedBackend;

beforeEach(async () => {
  backend = await startTracedBackend();
});

afterEach(async () => {
  trace.disable();
  await backend.close();
});

const agentTree: [string, [string, [string, [string, []][]][]][]] = [
  'invoke_agent agentchart',
  [['turn', [['step', [['chat scripted', []]]]]]],
];

async function runOneAgent(telemetry?: false): Promise<void> {
  const system = createAgentSystem({
    model: scripted([{ text: 'Hi.' }]),
    ...(telemetry === false ? { telemetry } : {}),
  });
  const agent = await system.createAgent();
  await agent.run('Say hi.');
  await system.dispose();
  await backend.provider.forceFlush();
}

describe('OpenTelemetry traces of jobs and providers', () => {
  it('puts the agents of a job run in this process under one job span', async () => {
    const system = createAgentSystem({
      model: scripted([{ text: 'One.' }, { text: 'Two.' }]),
      telemetry: { tracerProvider: backend.provider },
    });
    const job = system.runJob({ tasks: [{ prompt: 'First.' }, { prompt: 'Second.' }], concurrency: 1 });
    expect((await job.result).map((result) => result.reason)).toEqual(['completed', 'completed']);
    await system.dispose();
    await backend.provider.forceFlush();
    const { spans } = backend.receiver;
    expect(spanTree(spans)).toEqual([['job', [agentTree, agentTree]]]);
    expect(spans.find((span) => span.name === 'job')?.attributes).toEqual({ 'agentchart.job.tasks': 2 });
  });

  it('keeps a task resumed by a supervised restart under its job span', async () => {
    // The third write fails: the turn ends, its log cannot be flushed, so the restart resumes the agent
    // from its stored log (a new agent, which used to begin a trace of its own).
    const inner = memoryStore();
    let appends = 0;
    const store: SessionStore = {
      ...inner,
      kind: 'fails-once',
      append: async (sessionId, events) => {
        if (++appends === 3) throw new Error('disk full');
        return inner.append(sessionId, events);
      },
    };
    const system = createAgentSystem({
      model: scripted([{ text: 'Lost.' }, { text: 'Done.' }]),
      store,
      telemetry: { tracerProvider: backend.provider },
    });
    const supervision = { restart: 'on-failure' as const, maxRestarts: 1, backoffMs: 0 };
    const job = system.runJob({ tasks: [{ prompt: 'Work.', supervision }], concurrency: 1 });
    expect(await job.result).toMatchObject([{ reason: 'completed', text: 'Done.', restarts: 1 }]);
    await system.dispose();
    await backend.provider.forceFlush();
    expect(spanTree(backend.receiver.spans)).toEqual([['job', [agentTree, agentTree]]]);
  });

  it('uses the globally registered provider when the option names none', async () => {
    trace.setGlobalTracerProvider(backend.provider);
    await runOneAgent();
    expect(spanTree(backend.receiver.spans)).toEqual([agentTree]);
  });

  it('makes no span with telemetry: false, nor when no provider is registered', async () => {
    trace.setGlobalTracerProvider(backend.provider);
    await runOneAgent(false);
    trace.disable();
    await runOneAgent();
    expect(backend.receiver.spans).toEqual([]);
  });

  it('continues a traceparent given to createAgent, and does not log it', async () => {
    const traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const system = createAgentSystem({
      model: scripted([{ text: 'Hi.' }]),
      telemetry: { tracerProvider: backend.provider },
    });
    const agent = await system.createAgent({ traceParent });
    await agent.run('Say hi.');
    const log = JSON.stringify(agent.log());
    await system.dispose();
    await backend.provider.forceFlush();
    const [root] = backend.receiver.spans.filter((span) => span.name === 'invoke_agent agentchart');
    expect([root?.traceId, root?.parentSpanId]).toEqual([
      '0af7651916cd43dd8448eb211c80319c',
      'b7ad6b7169203331',
    ]);
    expect(log).not.toContain('0af7651916cd43dd8448eb211c80319c');
  });

  it('continues a traceparent given to resumeAgent from the turn it runs next', async () => {
    const traceParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const system = createAgentSystem({
      model: scripted([{ text: 'One.' }, { text: 'Two.' }]),
      telemetry: { tracerProvider: backend.provider },
    });
    const first = await system.createAgent({ id: 'kept' });
    await first.run('First.');
    await first.dispose();
    const resumed = await system.resumeAgent('kept', { traceParent });
    await resumed.run('Second.');
    await system.dispose();
    await backend.provider.forceFlush();
    const agents = backend.receiver.spans.filter((span) => span.name === 'invoke_agent agentchart');
    const continued = agents.filter((span) => span.parentSpanId === '00f067aa0ba902b7');
    expect([agents.length, continued.length, continued[0]?.traceId]).toEqual([
      2,
      1,
      '4bf92f3577b34da6a3ce929d0e0e4736',
    ]);
  });

  it('refuses a bad telemetry option or traceparent with a ConfigError naming it', async () => {
    const model = scripted([]);
    const bad = (telemetry: unknown) => () =>
      createAgentSystem({ model, telemetry: telemetry as { recordContent: boolean } });
    expect(bad({ recordContent: 'yes' })).toThrow(ConfigError);
    expect(bad({ recordContent: 'yes' })).toThrow(/telemetry\.recordContent must be true or false/);
    expect(bad({ tracerProvider: {} })).toThrow(
      /telemetry\.tracerProvider must be an OpenTelemetry TracerProvider/,
    );
    expect(bad({ sampleRate: 1 })).toThrow(/telemetry/);
    expect(bad(true)).toThrow(/telemetry must be false or \{ tracerProvider\?, recordContent\? \}/);
    const system = createAgentSystem({ model });
    await expect(system.createAgent({ traceParent: '00-abc' })).rejects.toThrow(
      /traceParent must be a W3C traceparent/,
    );
    await system.dispose();
  });

  it('stops tracing an agent whose tracer throws, with a warning, and the agent goes on', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('tracer broke');
        },
      }),
    };
    try {
      const system = createAgentSystem({
        model: scripted([{ text: 'Still here.' }]),
        telemetry: { tracerProvider: broken },
      });
      const agent = await system.createAgent({ id: 'steady' });
      const result = await agent.run('Hello.');
      await system.dispose();
      expect([result.reason, result.text]).toEqual(['completed', 'Still here.']);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual(['agentchart: tracing of agent steady stopped: tracer broke']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

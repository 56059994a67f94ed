import { rm } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { LiveEvent } from '../../actors/live-event.ts';
import { type Clock, systemClock } from '../../core/clock.ts';
import { messageOf } from '../../errors/describe-value.ts';
import { loadRecording, RecordedSource } from '../../inspector/recorded-source.ts';
import { type InspectorServer, serveInspector, startInspector } from '../../inspector/server.ts';
import { StoreSource } from '../../inspector/store-source.ts';
import { scripted } from '../../providers/scripted.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../providers/types.ts';
import { codingTools } from '../../tools/coding-tools.ts';
import type { AnyTool } from '../../tools/define-tool.ts';
import { demoScript, demoSteer, demoSystem, demoTask, isSteerMoment, prepareDemo } from '../demo-scenario.ts';
import { type CliIo, line, type TextOut } from '../terminal/io.ts';

export type InspectOptions = {
  /** A session log (.jsonl) to show read-only; without it, a scripted demo agent runs live. */
  file?: string;
  /** 0 picks a free port (default 4777 for a person at a terminal). */
  port?: number;
  /** Stops serving (default: Ctrl-C). */
  signal?: AbortSignal;
  /** Called with the page's address once it is served. */
  onReady?: (url: string) => void;
  /** Slow the demo model and tools down so a person can watch (default true). */
  pace?: boolean;
  /** `--postgres URL`: show every session of that PostgreSQL store, read-only, refreshed as workers write. */
  postgres?: string;
};

const embedHint = [
  'Live inspection is for programs that embed agentchart. Attach it to your own agent system:',
  '',
  "  import { createAgentSystem, startInspector } from 'agentchart';",
  '  const system = createAgentSystem({ model });',
  '  const inspector = await startInspector(system, { port: 4777 });',
  '  console.log(inspector.url);   // open it in a browser; await inspector.close() when done',
  '',
];

/**
 * `agentchart inspect [FILE] [--port N]`. With FILE, serves a read-only view of that recorded session
 * (and of the subagent sessions beside it): transcript, log and the final states derived from the log.
 * Without FILE, explains how to embed the inspector and runs the scripted demo agent with the inspector
 * attached, starting it when a page connects. Serves until Ctrl-C (or `signal`), then returns 0.
 */
export async function inspectCommand(options: InspectOptions = {}, io: Partial<CliIo> = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const port = options.port ?? 4777;
  if (options.postgres !== undefined) return inspectStore(options.postgres, port, stdout, options);
  if (options.file !== undefined) {
    const path = resolve(io.cwd ?? process.cwd(), options.file);
    const { sessions, warnings } = await loadRecording(path);
    for (const warning of warnings) line(stderr, `agentchart: ${warning}`);
    const events = sessions.reduce((sum, session) => sum + session.events.length, 0);
    const source = new RecordedSource(sessions, `agentchart — ${basename(path)} (recorded)`);
    const server = await serveInspector(source, { port });
    line(stdout, `Inspecting ${path}: ${sessions.length} session(s), ${events} events, read-only.`);
    return serveUntilStopped(server, stdout, options);
  }
  for (const text of embedHint) line(stdout, text);
  return runLiveDemo(port, stdout, options);
}

/** Every session of a PostgreSQL store (the sessions of a distributed job), read-only. */
async function inspectStore(
  url: string,
  port: number,
  out: TextOut,
  options: InspectOptions,
): Promise<number> {
  const { pgStore } = await import('../../postgres/pg-store.ts');
  const store = pgStore(url);
  try {
    const source = await StoreSource.open(store);
    const server = await serveInspector(source, { port });
    line(
      out,
      `Inspecting the PostgreSQL store: ${source.agents().agents.length} session(s), read-only, refreshed every second.`,
    );
    return await serveUntilStopped(server, out, options);
  } finally {
    await store.close();
  }
}

async function serveUntilStopped(
  server: InspectorServer,
  out: TextOut,
  options: InspectOptions,
): Promise<number> {
  line(out, `Inspector: ${server.url}  (Ctrl-C stops it)`);
  options.onReady?.(server.url);
  await stopRequested(options.signal);
  await server.close();
  return 0;
}

/** Resolves on `signal` or, without one, on the first Ctrl-C. */
function stopRequested(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    if (signal) {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
      return;
    }
    process.once('SIGINT', () => done());
  });
}

async function runLiveDemo(port: number, out: TextOut, options: InspectOptions): Promise<number> {
  const { root, workspace } = await prepareDemo('agentchart-inspect-');
  const pace = options.pace ?? true;
  const model = scripted(demoScript(), { clock: systemClock, chunkSize: pace ? 4 : 8 });
  const system = demoSystem({
    root,
    workspace,
    model: pace ? paced(model, systemClock, 35) : model,
    tools: pace ? codingTools().map((tool) => slowed(tool, systemClock, 600)) : codingTools(),
  });
  let connected!: () => void;
  const firstClient = new Promise<void>((resolve) => (connected = resolve));
  const server = await startInspector(system, {
    port,
    title: 'agentchart — live demo (scripted model)',
    onClients: (count) => count > 0 && connected(),
  });
  try {
    line(out, 'Meanwhile, here is the scripted demo agent (no LLM is called) with the inspector attached.');
    line(out, `Inspector: ${server.url}  — the demo starts when the page connects; Ctrl-C stops it.`);
    options.onReady?.(server.url);
    const stop = stopRequested(options.signal);
    const started = await Promise.race([firstClient.then(() => true), stop.then(() => false)]);
    if (started) {
      const agent = await system.createAgent({ id: 'demo' });
      const steering = steerWhileTestsRun(agent.events(), () => agent.steer(demoSteer));
      line(out, `Task: ${demoTask}`);
      const run = agent.run(demoTask);
      const ended = await Promise.race([run, stop.then(() => undefined)]);
      if (ended) {
        line(out, `The demo turn ended: ${ended.reason}. The page keeps showing it until you press Ctrl-C.`);
        await stop;
      } else {
        agent.cancel('user');
        await run;
      }
      await agent.dispose();
      await steering;
    }
  } finally {
    await system.dispose();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
  return 0;
}

async function steerWhileTestsRun(events: AsyncIterable<LiveEvent>, steer: () => void): Promise<void> {
  for await (const event of events) {
    if (!isSteerMoment(event)) continue;
    try {
      steer();
    } catch (error) {
      // A demo that cannot steer still runs to the end; say why the steering message is missing.
      process.stderr.write(`agentchart: could not steer the demo: ${messageOf(error)}\n`);
    }
  }
}

/** The model, with a pause before each streamed piece so the text visibly streams. */
function paced(provider: Provider, clock: Clock, delayMs: number): Provider {
  return {
    name: provider.name,
    model: provider.model,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      for await (const event of provider.stream(request, signal)) {
        if (event.type === 'text.delta' || event.type === 'tool_call') await pause(clock, delayMs, signal);
        yield event;
      }
    },
  };
}

/** The tool, starting `delayMs` late so its running state can be seen. */
function slowed(tool: AnyTool, clock: Clock, delayMs: number): AnyTool {
  return {
    ...tool,
    run: async (input, context) => {
      await pause(clock, delayMs, context.signal);
      return tool.run(input, context);
    },
  };
}

function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const cancel = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      cancel();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

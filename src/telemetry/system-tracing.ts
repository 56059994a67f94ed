// The tracing of one agent system: decides once per agent whether spans are made (a tracer provider is
// set), follows the agents that are traced, hangs a subagent under the call that started it, and makes the
// span of a job. With no provider set, an agent is not followed at all: no per-event work.
import type { Context, Tracer } from '@opentelemetry/api';
import { ConfigError } from '../errors/config-error.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { LogEvent } from '../session/types.ts';
import { AgentSpans, type ObservedEvent } from './agent-spans.ts';
import { loadOpenTelemetry, type OpenTelemetry } from './open-telemetry.ts';
import { type TelemetryConfig, type TelemetryOptions, telemetryConfig } from './telemetry-options.ts';
import { contextOfTraceParent, formatTraceParent } from './trace-parent.ts';

const tracerName = 'agentchart';

/** One agent to trace: its events so far, where its later ones come from, and what it hangs under. */
export type TracedAgent = {
  agentId: string;
  /** The agent that started this one (a subagent's parent). */
  parent?: string | undefined;
  /** A W3C traceparent its span continues (a job's, a queue's, a host's). */
  traceParent?: string | undefined;
  /** Its log so far: only the model and provider are read from it (past turns are not traced again). */
  events: readonly LogEvent[];
  subscribe(listener: (event: ObservedEvent) => void): () => void;
};

/** A job's span while its tasks run: the traceparent its tasks continue, and its end. */
export type JobSpan = { traceParent: string; end(failure?: string): void };

export class SystemTracing {
  private api: OpenTelemetry | undefined;
  /** The package was looked for: not installed (`true`), or installed but failing to load. */
  private missing: false | true | { broken: unknown } = false;
  private readonly agents = new Map<string, AgentSpans>();

  constructor(private readonly config: TelemetryConfig) {}

  /**
   * Loads `@opentelemetry/api` (once per process) unless tracing is off; call before `attach`. Answers
   * nothing (synchronously) once loaded or when off: an agent's launch then takes no extra turn of the
   * event loop, so the order in which concurrent launches draw their ids stays what it was.
   */
  ready(call: string): Promise<void> | undefined {
    if (!this.config.enabled || this.api || this.missing) return this.refuseMissing(call);
    return loadOpenTelemetry().then((load) => {
      if (load.kind === 'loaded') this.api = load.api;
      else this.missing = load.kind === 'missing' ? true : { broken: load.error };
      if (load.kind === 'broken' && this.config.enabled && !this.config.tracerProvider)
        process.emitWarning(
          `agentchart: no tracing: @opentelemetry/api failed to load: ${messageOf(load.error)}`,
        );
      return this.refuseMissing(call);
    });
  }

  private refuseMissing(call: string): undefined {
    if (this.missing && this.config.enabled && this.config.tracerProvider) {
      const why =
        this.missing === true
          ? 'needs the @opentelemetry/api package (npm install @opentelemetry/api)'
          : `could not load @opentelemetry/api: ${messageOf(this.missing.broken)}`;
      throw new ConfigError(`${call}: telemetry.tracerProvider ${why}`);
    }
    return undefined;
  }

  /** Follows one agent's events into spans when a tracer provider is set; returns how to stop. */
  attach(agent: TracedAgent): () => void {
    const api = this.api;
    const tracer = api && this.tracer(api);
    if (!api || !tracer || !this.config.enabled) return () => {};
    const spans = new AgentSpans({
      api,
      tracer,
      agentId: agent.agentId,
      recordContent: this.config.recordContent,
      parent: this.parentOf(api, agent),
    });
    for (const event of agent.events)
      if (event.type === 'session.start' || event.type === 'session.resumed')
        spans.observe({ type: 'log', event });
    this.agents.set(agent.agentId, spans);
    let unsubscribe = () => {};
    const stop = () => {
      unsubscribe();
      if (this.agents.get(agent.agentId) === spans) this.agents.delete(agent.agentId);
    };
    unsubscribe = agent.subscribe((event) => {
      try {
        spans.observe(event);
      } catch (error) {
        // Spans are made inside the agent's log writes: a tracer that throws must not reach the agent.
        stop();
        process.emitWarning(`agentchart: tracing of agent ${agent.agentId} stopped: ${messageOf(error)}`);
      }
    });
    return () => {
      stop();
      try {
        spans.end();
      } catch (error) {
        process.emitWarning(`agentchart: tracing of agent ${agent.agentId}: ${messageOf(error)}`);
      }
    };
  }

  /**
   * Starts the span of a job (kind `PRODUCER` for one handed to a queue): a child of the host's active
   * span, if any. `undefined` when no tracer provider is set.
   */
  startJob(attributes: Record<string, string | number>, producer = false): JobSpan | undefined {
    const api = this.api;
    const tracer = api && this.config.enabled ? this.tracer(api) : undefined;
    if (!api || !tracer) return undefined;
    const kind = producer ? api.SpanKind.PRODUCER : api.SpanKind.INTERNAL;
    const span = tracer.startSpan('job', { kind, attributes }, api.context.active());
    return {
      traceParent: formatTraceParent(span.spanContext()),
      end: (failure) => {
        if (failure !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure });
        span.end();
      },
    };
  }

  /**
   * Wraps a job's `createAgent` so that every task's agent is a child of one `job` span, started with the
   * first task (the API loads asynchronously); `endWith` ends it when the job's result settles. `tasks` is
   * read then, once the job's options have been checked.
   */
  traceJob<Options extends object, Created>(
    tasks: () => number,
    createAgent: (options: Options & { traceParent?: string }) => Promise<Created>,
  ): {
    createAgent: (options: Options) => Promise<Created>;
    /** `options` with the job's traceparent: a task's agent resumed by a restart stays under the job. */
    withJobTrace: <Given extends object>(options: Given) => Promise<Given & { traceParent?: string }>;
    endWith(result: Promise<unknown>): void;
  } {
    let jobSpan: Promise<JobSpan | undefined> | undefined;
    const startSpan = async () => {
      await this.ready('runJob');
      return this.startJob({ 'agentchart.job.tasks': tasks() });
    };
    const endSpan = (failure?: string) =>
      jobSpan?.then(
        (span) => span?.end(failure),
        () => {
          // No span was made: the tasks' createAgent rejected with the reason, and the job reported it.
        },
      );
    const withJobTrace = async <Given extends object>(options: Given) => {
      jobSpan ??= startSpan();
      const span = await jobSpan;
      return span ? { ...options, traceParent: span.traceParent } : options;
    };
    return {
      createAgent: async (options) => createAgent(await withJobTrace(options)),
      withJobTrace,
      endWith: (result) => {
        void result.then(
          () => endSpan(),
          (error: unknown) => endSpan(messageOf(error)),
        );
      },
    };
  }

  /** The tracer of the provider set (the host's, else the global one); `undefined` when none is set. */
  private tracer(api: OpenTelemetry): Tracer | undefined {
    const provider = this.config.enabled
      ? (this.config.tracerProvider ?? api.trace.getTracerProvider())
      : undefined;
    if (!provider) return undefined;
    // The global provider is a proxy until an SDK registers one: its delegate's tracer, or none (no-op).
    const proxy = provider as { getDelegateTracer?: (name: string) => Tracer | undefined };
    if (typeof proxy.getDelegateTracer === 'function') return proxy.getDelegateTracer(tracerName);
    return provider.getTracer(tracerName) as Tracer;
  }

  private parentOf(api: OpenTelemetry, agent: TracedAgent): () => Context {
    if (agent.traceParent !== undefined) {
      const context = contextOfTraceParent(api, agent.traceParent);
      return () => context;
    }
    if (agent.parent !== undefined) {
      const parentId = agent.parent;
      return () => this.agents.get(parentId)?.childParent(agent.agentId) ?? api.ROOT_CONTEXT;
    }
    // A top-level agent hangs under the span the host had active when it created it, if any.
    const active = api.context.active();
    return () => active;
  }
}

/**
 * The span of a job handed to a queue (kind `PRODUCER`, ended once it is enqueued): its traceparent goes
 * into every task's data, and the workers' agents continue it. `undefined` when no provider is set.
 */
export async function startQueuedJobSpan(
  call: string,
  option: TelemetryOptions | undefined,
  attributes: Record<string, string | number>,
): Promise<JobSpan | undefined> {
  const tracing = new SystemTracing(telemetryConfig(option));
  await tracing.ready(call);
  return tracing.startJob(attributes, true);
}

// The `telemetry` option of `createAgentSystem` and the `traceParent` of `createAgent`, as zod schemas:
// parsed once where they enter (a bad value is a ConfigError naming the option).
import { z } from 'zod/v4';
import { flag, must } from '../core/host-schema.ts';
import { traceParentPattern } from './trace-parent.ts';

/**
 * What agentchart needs of an OpenTelemetry `TracerProvider` (from `@opentelemetry/api`), written out so
 * that agentchart's types do not require the package.
 */
export type TracerProviderLike = { getTracer(name: string, version?: string): unknown };

/**
 * OpenTelemetry traces (docs/telemetry.md). Spans are made only when a tracer provider is set: this
 * option's `tracerProvider`, or else the one registered globally with `@opentelemetry/api`
 * (`trace.setGlobalTracerProvider`, or an SDK's `register()`). `false` turns tracing off.
 */
export type TelemetryOptions =
  | false
  | {
      /** The provider to take the tracer from (default: the global one of `@opentelemetry/api`). */
      tracerProvider?: TracerProviderLike;
      /**
       * Put message content on spans: the user messages of a turn, the model's answer, tool arguments and
       * results (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.tool.call.arguments`,
       * `gen_ai.tool.call.result`). Default `false`: spans carry names, ids, counts and outcomes only.
       */
      recordContent?: boolean;
    };

const tracerProviderSchema = z.custom<TracerProviderLike>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getTracer?: unknown }).getTracer === 'function',
  must('an OpenTelemetry TracerProvider (an object with getTracer)'),
);

const telemetryObjectSchema = z.strictObject(
  { tracerProvider: tracerProviderSchema.optional(), recordContent: flag.optional() },
  must('false or { tracerProvider?, recordContent? }'),
);

/** `false`, or the object: a bad key of the object is named (a plain union would only say "invalid"). */
export const telemetryOptionSchema = z.unknown().transform((value, context) => {
  if (value === false) return false as const;
  const parsed = telemetryObjectSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    context.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

const traceParentMessage = must('a W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>")');

/** `createAgent`'s `traceParent`: the span the agent's `invoke_agent` span is a child of. */
export const traceParentSchema = z.string(traceParentMessage).regex(traceParentPattern, traceParentMessage);

/** The option with its default filled in: off, or on with the provider to use (none: the global one). */
export type TelemetryConfig =
  | { enabled: false }
  | { enabled: true; tracerProvider: TracerProviderLike | undefined; recordContent: boolean };

export function telemetryConfig(option: TelemetryOptions | undefined): TelemetryConfig {
  if (option === false) return { enabled: false };
  return {
    enabled: true,
    tracerProvider: option?.tracerProvider,
    recordContent: option?.recordContent ?? false,
  };
}

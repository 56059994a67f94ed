// W3C Trace Context (https://www.w3.org/TR/trace-context/#traceparent-header): the `traceparent` string a
// job's span is handed on in, to the tasks of a job run in this process and to a queue's workers.
import type { Context, SpanContext } from '@opentelemetry/api';
import type { OpenTelemetry } from './open-telemetry.ts';

/** `version-traceid-parentid-flags`, lowercase hex; all-zero ids are invalid (W3C Trace Context §3.2.2). */
export const traceParentPattern = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The `traceparent` of a span. */
export function formatTraceParent(span: SpanContext): string {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/** A context whose parent span is the one `traceParent` names (checked by `traceParentPattern` already). */
export function contextOfTraceParent(api: OpenTelemetry, traceParent: string): Context {
  const [, traceId = '', spanId = '', flags = '00'] = traceParent.split('-');
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  });
}

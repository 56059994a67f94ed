// A local OTLP/HTTP trace receiver for tests: takes what `@opentelemetry/exporter-trace-otlp-http` posts to
// `/v1/traces` (OTLP JSON, https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) and keeps the
// spans, so a test asserts what a real backend would have received.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One received span, with its attributes flattened to plain values. */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
};

export type OtlpReceiver = {
  url: string;
  spans: ReceivedSpan[];
  /** How many POSTs came in (each one an export). */
  posts: number;
  close(): Promise<void>;
};

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttribute = { key: string; value: OtlpValue };

function plainValue(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((entry) => [entry.key, plainValue(entry.value)]));
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = { url: '', spans: [], posts: 0, close: async () => {} };
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(await bodyOf(request)) as {
        resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
      };
      receiver.posts += 1;
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            receiver.spans.push({
              traceId: String(span.traceId),
              spanId: String(span.spanId),
              parentSpanId: String(span.parentSpanId ?? ''),
              name: String(span.name),
              kind: Number(span.kind),
              startTimeUnixNano: String(span.startTimeUnixNano),
              status: (span.status ?? {}) as ReceivedSpan['status'],
              attributes: attributesOf(span.attributes as OtlpAttribute[] | undefined),
              events: ((span.events ?? []) as { name: string; attributes?: OtlpAttribute[] }[]).map(
                (event) => ({
                  name: event.name,
                  attributes: attributesOf(event.attributes),
                }),
              ),
            });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A span and its children, by start time: `[name, children]` — the shape a trace view draws. */
export type SpanTree = [string, SpanTree[]];

export function spanTree(spans: readonly ReceivedSpan[]): SpanTree[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const start = (span: ReceivedSpan) => BigInt(span.startTimeUnixNano);
  const byStart = [...spans].sort((a, b) => (start(a) < start(b) ? -1 : start(a) > start(b) ? 1 : 0));
  const childrenOf = (parent: string): SpanTree[] =>
    byStart
      .filter((span) => span.parentSpanId === parent)
      .map((span) => [span.name, childrenOf(span.spanId)]);
  return byStart
    .filter((span) => !ids.has(span.parentSpanId))
    .map((span) => [span.name, childrenOf(span.spanId)]);
}

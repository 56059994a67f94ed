// The real OpenTelemetry SDK exporting over OTLP/HTTP to a receiver on 127.0.0.1: what telemetry tests
// point agentchart at.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts';

export type TracedBackend = { receiver: OtlpReceiver; provider: TracerProvider; close(): Promise<void> };

export async function startTracedBackend(): Promise<TracedBackend> {
  const receiver = await startOtlpReceiver();
  const exporter = new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` });
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return {
    receiver,
    provider,
    close: async () => {
      await provider.shutdown();
      await receiver.close();
    },
  };
}

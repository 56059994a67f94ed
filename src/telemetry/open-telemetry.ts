// `@opentelemetry/api` is an optional peer dependency: it is loaded here, once, the first time an agent
// system needs it, and a host without it gets no spans and no error. Only this folder names the package
// (test/scale/embedded-default.test.ts keeps it so), and only this file loads it.
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The OpenTelemetry API as loaded (`undefined`: the package is not installed). */
export type OpenTelemetry = typeof OpenTelemetryApi;

let loading: Promise<OpenTelemetry | undefined> | undefined;

/** Loads `@opentelemetry/api` once; resolves `undefined` when the host did not install it. */
export function loadOpenTelemetry(): Promise<OpenTelemetry | undefined> {
  loading ??= import('@opentelemetry/api').then(
    (api) => api,
    // Not installed (or not loadable): tracing is off, which is what a host without it asked for.
    () => undefined,
  );
  return loading;
}

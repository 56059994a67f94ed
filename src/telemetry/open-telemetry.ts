// `@opentelemetry/api` is an optional peer dependency: it is loaded here, once, the first time an agent
// system needs it, and a host without it gets no spans and no error. Only this folder names the package
// (test/scale/embedded-default.test.ts keeps it so), and only this file loads it.
import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The OpenTelemetry API as loaded. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/**
 * What looking for the package found: the API; `missing` (not installed: tracing is off, as the host
 * chose by not installing it); or `broken` (installed, but it failed to load: the host wanted tracing,
 * and silence would hide that it gets none).
 */
export type OpenTelemetryLoad =
  | { kind: 'loaded'; api: OpenTelemetry }
  | { kind: 'missing' }
  | { kind: 'broken'; error: unknown };

let loading: Promise<OpenTelemetryLoad> | undefined;

/** Loads `@opentelemetry/api` once per process. */
export function loadOpenTelemetry(): Promise<OpenTelemetryLoad> {
  loading ??= import('@opentelemetry/api').then(
    (api): OpenTelemetryLoad => ({ kind: 'loaded', api }),
    (error: unknown): OpenTelemetryLoad =>
      notInstalled(error) ? { kind: 'missing' } : { kind: 'broken', error },
  );
  return loading;
}

/** Node's answer to an import of a package that is not there (and not to one of its own files missing). */
export function notInstalled(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.startsWith("Cannot find package '@opentelemetry/api'")
  );
}

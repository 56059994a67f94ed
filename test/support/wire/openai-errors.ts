import type { WireAction } from './fake-server.ts';
import type { WireHttpError } from './reply.ts';

const defaults: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  529: { type: 'server_error', code: null },
};

/** An OpenAI error response (both Chat Completions and Responses use this body). */
export function openaiHttpError(error: WireHttpError): WireAction {
  const fallback = defaults[error.status] ?? { type: 'server_error', code: null };
  return {
    type: 'http',
    status: error.status,
    headers: { 'x-request-id': 'req_fake', ...error.headers },
    body: {
      error: {
        message: error.message,
        type: error.errorType ?? fallback.type,
        code: fallback.code,
        param: null,
      },
    },
  };
}

// Older OpenAI-compatible servers (vLLM before mid-2025 among them) answer a refused request with the
// error object at the top of the body, `{ object: 'error', message, type, code }`, where OpenAI nests it
// under `error`. The SDK reads only `body.error`, so such a refusal reached the runtime as
// "400 status code (no body)": a prompt too long for the window could not be told from any bad request.

type Fetch = typeof globalThis.fetch;

/**
 * A `fetch` for the OpenAI SDK that moves a bare error object under `error`, so the SDK keeps its message,
 * type and code. Successful responses, and error bodies that already have `error` or are not JSON
 * objects with a string `message`, pass through untouched.
 */
export function nestBareErrorBodies(inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const body = bareError(text);
    const headers = new Headers(response.headers);
    // The body is rebuilt, so its length and encoding are no longer the server's.
    headers.delete('content-length');
    headers.delete('content-encoding');
    const rebuilt = body === undefined ? text : JSON.stringify({ error: body });
    return new Response(rebuilt, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The body as an error object when it is one without the `error` wrapper; else undefined. */
function bareError(text: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the SDK reports the text as it is.
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  if ('error' in record || typeof record.message !== 'string') return undefined;
  return record;
}

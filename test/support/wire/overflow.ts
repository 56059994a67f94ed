// How servers refuse a request that does not fit the model's context window, body for body as they send
// it. The texts are the servers' own (seen in their issue trackers and sources); only token counts vary.
import type { WireAction } from './fake-server.ts';

/**
 * Who refuses: `vendor` is the vendor's own API (Anthropic, OpenAI); the rest are OpenAI-compatible
 * servers, each as one of its versions words it.
 */
export type OverflowServer =
  | 'vendor'
  | 'vllm'
  | 'vllm-legacy'
  | 'vllm-prompt'
  | 'vllm-max-tokens'
  | 'llama.cpp'
  | 'llama.cpp-500'
  | 'ollama'
  | 'ollama-500'
  | 'lmstudio'
  | 'lmstudio-keep';

/** The OpenAI-compatible servers, for the adapters that talk to them. */
export const compatibleOverflowServers = [
  'vllm',
  'vllm-legacy',
  'vllm-prompt',
  'vllm-max-tokens',
  'llama.cpp',
  'llama.cpp-500',
  'ollama',
  'ollama-500',
  'lmstudio',
  'lmstudio-keep',
] as const satisfies readonly OverflowServer[];

type Refusal = { status: number; body: unknown };

const vllmMessage =
  "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens " +
  '(4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.';

const vllmError = (message: string) => ({ message, type: 'BadRequestError', param: null, code: 400 });

const ollamaError = (type: string) => ({
  message: 'the input length exceeds the context length',
  type,
  param: null,
  code: null,
});

const compatible: Record<(typeof compatibleOverflowServers)[number], Refusal> = {
  vllm: { status: 400, body: { error: vllmError(vllmMessage) } },
  // Before mid-2025 vLLM put the error object at the top level of the body.
  'vllm-legacy': { status: 400, body: { object: 'error', ...vllmError(vllmMessage) } },
  'vllm-prompt': {
    status: 400,
    body: {
      error: vllmError(
        'The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that ' +
          '`max_model_len` is no smaller than the number of text tokens.',
      ),
    },
  },
  'vllm-max-tokens': {
    status: 400,
    body: {
      error: vllmError(
        "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length " +
          'is 8192 tokens and your request has 1210 input tokens (8192 > 8192 - 1210).',
      ),
    },
  },
  'llama.cpp': {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 14429,
        n_ctx: 8192,
      },
    },
  },
  // Some builds answered with status 500 for the same refusal: it must still not be retried.
  'llama.cpp-500': {
    status: 500,
    body: {
      error: {
        code: 500,
        message:
          'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    },
  },
  ollama: { status: 400, body: { error: ollamaError('invalid_request_error') } },
  'ollama-500': { status: 500, body: { error: ollamaError('api_error') } },
  lmstudio: {
    status: 400,
    body: {
      error:
        'Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with ' +
        'context length of only 7866 tokens, which is not enough. Try to load the model with a larger context ' +
        'length, or provide a shorter input',
    },
  },
  'lmstudio-keep': {
    status: 400,
    body: { error: 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)' },
  },
};

/** OpenAI's own refusal, Chat Completions and Responses alike (the message differs a little). */
export const openaiOverflowError = {
  message:
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. " +
    'Please reduce the length of the messages.',
  type: 'invalid_request_error',
  param: 'messages',
  code: 'context_length_exceeded',
};

/** Anthropic's refusal of a prompt over the window. */
export const anthropicOverflowError = {
  type: 'invalid_request_error',
  message: 'prompt is too long: 208310 tokens > 200000 maximum',
};

/** The HTTP status a server refuses with. */
export function overflowStatus(server: OverflowServer): number {
  return server === 'vendor' ? 400 : compatible[server].status;
}

/** The HTTP answer of an OpenAI(-compatible) server that refuses the request as too long. */
export function openaiOverflowAction(server: OverflowServer): WireAction {
  const refusal: Refusal =
    server === 'vendor' ? { status: 400, body: { error: openaiOverflowError } } : compatible[server];
  return {
    type: 'http',
    status: refusal.status,
    headers: { 'x-request-id': 'req_fake' },
    body: refusal.body,
  };
}

/** Anthropic's HTTP answer; Anthropic has no compatible servers to imitate. */
export function anthropicOverflowAction(server: OverflowServer): WireAction {
  if (server !== 'vendor') throw new Error(`the Anthropic server does not speak for ${server}`);
  return {
    type: 'http',
    status: 400,
    headers: { 'request-id': 'req_fake' },
    body: { type: 'error', error: anthropicOverflowError },
  };
}

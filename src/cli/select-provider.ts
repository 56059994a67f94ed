import { ConfigError } from '../errors/config-error.ts';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { Provider } from '../providers/types.ts';

/** The model used when neither `--model` nor `ANTHROPIC_MODEL` names one. */
export const defaultAnthropicModel = 'claude-sonnet-4-5';
/** The model used when neither `--model` nor `OPENAI_MODEL` names one. */
export const defaultOpenAIModel = 'gpt-4.1';

export type ProviderChoice = { provider: Provider; description: string } | { error: string };

const providerNames = ['anthropic', 'openai', 'openai-responses'] as const;

// One line, as every CLI error is; docs/models.md has the longer version.
const howToConfigure =
  'set ANTHROPIC_API_KEY (Anthropic), OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (a local OpenAI-compatible ' +
  'server: Ollama, vLLM, llama.cpp, LM Studio), or pass --provider anthropic|openai|openai-responses [--model NAME]; ' +
  '`agentchart demo` runs without any key';

/**
 * Picks the model for `agentchart run`: from `--provider`/`--model`, else `ANTHROPIC_API_KEY`, else
 * `OPENAI_API_KEY` or `OPENAI_BASE_URL`. Returns an `error` text for the user instead of throwing.
 *
 * @example
 * const choice = await selectProvider({ provider: flags.provider, model: flags.model, env: process.env });
 * if ('error' in choice) { console.error(choice.error); process.exitCode = 2; }
 */
export async function selectProvider(options: {
  provider?: string | undefined;
  model?: string | undefined;
  /** Tokens the model's window holds, for a model the adapter does not know (a local server's). */
  contextWindow?: number | undefined;
  env: Record<string, string | undefined>;
}): Promise<ProviderChoice> {
  const { env } = options;
  const model = nonEmpty(options.model);
  const window = options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow };
  switch (options.provider) {
    case undefined:
    case '':
      if (nonEmpty(env.ANTHROPIC_API_KEY)) return anthropicChoice(env, model, window);
      if (nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.OPENAI_BASE_URL))
        return openaiChoice(env, model, 'chat', window);
      return { error: `no model is configured: ${howToConfigure}` };
    case 'anthropic':
      if (!nonEmpty(env.ANTHROPIC_API_KEY)) {
        return {
          error:
            '--provider anthropic needs ANTHROPIC_API_KEY to be set: export ANTHROPIC_API_KEY=sk-ant-...',
        };
      }
      return anthropicChoice(env, model, window);
    case 'openai':
    case 'openai-responses': {
      if (!nonEmpty(env.OPENAI_API_KEY) && !nonEmpty(env.OPENAI_BASE_URL)) {
        return {
          error: `--provider ${options.provider} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server): export OPENAI_API_KEY=sk-...`,
        };
      }
      return openaiChoice(env, model, options.provider === 'openai' ? 'chat' : 'responses', window);
    }
    case 'scripted':
      return {
        error:
          '--provider scripted cannot run a task: a scripted model only replays a script written in advance. ' +
          'Use `agentchart demo` to watch a scripted run (no key needed), or `scripted()` from agentchart/testing in tests.',
      };
    default:
      return { error: `unknown provider "${options.provider}": use one of ${providerNames.join(', ')}.` };
  }
}

type WindowOption = { contextWindow?: number };

async function anthropicChoice(
  env: Record<string, string | undefined>,
  model: string | undefined,
  window: WindowOption,
): Promise<ProviderChoice> {
  const loaded = await providerModule(() => import('../providers/anthropic.ts'));
  if ('error' in loaded) return loaded;
  const { anthropic } = loaded;
  const chosen = model ?? nonEmpty(env.ANTHROPIC_MODEL) ?? defaultAnthropicModel;
  const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
  return {
    provider: anthropic({
      model: chosen,
      apiKey: env.ANTHROPIC_API_KEY!,
      ...(baseURL ? { baseURL } : {}),
      ...window,
    }),
    description: `Anthropic ${chosen} (key from ANTHROPIC_API_KEY${baseURL ? `, at ${baseURL}` : ''})`,
  };
}

async function openaiChoice(
  env: Record<string, string | undefined>,
  model: string | undefined,
  api: 'chat' | 'responses',
  window: WindowOption,
): Promise<ProviderChoice> {
  const loaded = await providerModule(() => import('../providers/openai.ts'));
  if ('error' in loaded) return loaded;
  const { openai } = loaded;
  const chosen = model ?? nonEmpty(env.OPENAI_MODEL) ?? defaultOpenAIModel;
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  // Local servers ignore the key, but the SDK refuses to start without one.
  const provider = openai({
    model: chosen,
    api,
    apiKey: apiKey ?? 'no-key',
    ...(baseURL ? { baseURL } : {}),
    ...window,
  });
  const where = baseURL ? ` at ${baseURL}` : '';
  const key = apiKey ? 'key from OPENAI_API_KEY' : 'no key';
  const label = api === 'chat' ? 'Chat Completions' : 'Responses API';
  return { provider, description: `OpenAI-compatible ${chosen}${where} (${label}, ${key})` };
}

/**
 * Loads a provider module only when it is chosen: its SDK is an optional peer dependency, so a missing SDK
 * is the error text the module's loader gives (what to install), not a crash of every command.
 */
async function providerModule<Module>(load: () => Promise<Module>): Promise<Module | { error: string }> {
  try {
    return await load();
  } catch (error) {
    if (ConfigError.isInstance(error)) return { error: error.message };
    throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * A one-line, plain message for a model failure the user must act on, e.g.
 * "the API key was rejected (401): check ANTHROPIC_API_KEY".
 */
export function describeProviderError(error: ProviderErrorData, providerName?: string): string {
  const status = error.status !== undefined ? ` (${error.status})` : '';
  const keyVariable =
    providerName === 'openai'
      ? 'OPENAI_API_KEY'
      : providerName === 'anthropic'
        ? 'ANTHROPIC_API_KEY'
        : 'the API key';
  switch (error.kind) {
    case 'auth':
      return `the API key was rejected${status}: check ${keyVariable}`;
    case 'rate_limit':
      return `the provider is rate limiting requests${status}; wait a little and try again`;
    case 'quota':
      return `the account may not spend more${status}: ${error.message} (check your plan, quota or billing)`;
    case 'invalid_output':
      return `the server refused what the model generated${status}, twice: ${error.message}`;
    case 'overloaded':
      return `the model is overloaded${status}; try again in a few minutes`;
    case 'server':
      return `the model server failed${status}: ${error.message}`;
    case 'network':
      return `could not reach the model server: ${error.message}`;
    case 'context_overflow':
      return `the conversation no longer fits the model's context window${status}: ${error.message}`;
    case 'bad_request':
      return `the model server refused the request${status}: ${error.message}`;
    case 'aborted':
      return 'the request was cancelled';
    case 'bad_response':
      return `the model's response could not be used: ${error.message}`;
  }
}

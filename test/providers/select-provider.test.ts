import { describe, expect, it } from 'vitest';
import {
  defaultAnthropicModel,
  defaultOpenAIModel,
  describeProviderError,
  selectProvider,
} from '../../src/cli/select-provider.ts';
import { ProviderError } from '../../src/errors/provider-error.ts';

function chosen(result: Awaited<ReturnType<typeof selectProvider>>) {
  if ('error' in result) throw new Error(`expected a provider, got: ${result.error}`);
  return { name: result.provider.name, model: result.provider.model, description: result.description };
}

function refused(result: Awaited<ReturnType<typeof selectProvider>>): string {
  if (!('error' in result)) throw new Error(`expected an error, got ${result.description}`);
  return result.error;
}

describe('selectProvider', () => {
  it('prefers ANTHROPIC_API_KEY when no flag is given', async () => {
    expect(chosen(await selectProvider({ env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' } }))).toEqual({
      name: 'anthropic',
      model: defaultAnthropicModel,
      description: `Anthropic ${defaultAnthropicModel} (key from ANTHROPIC_API_KEY)`,
    });
  });

  it('falls back to OPENAI_API_KEY, with OPENAI_BASE_URL and OPENAI_MODEL', async () => {
    const env = {
      OPENAI_API_KEY: 'o',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MODEL: 'local-model',
    };
    expect(chosen(await selectProvider({ env }))).toEqual({
      name: 'openai',
      model: 'local-model',
      description:
        'OpenAI-compatible local-model at http://127.0.0.1:9/v1 (Chat Completions, key from OPENAI_API_KEY)',
    });
  });

  it('accepts OPENAI_BASE_URL alone, for local servers that need no key', async () => {
    expect(chosen(await selectProvider({ env: { OPENAI_BASE_URL: 'http://localhost:11434/v1' } }))).toEqual({
      name: 'openai',
      model: defaultOpenAIModel,
      description: `OpenAI-compatible ${defaultOpenAIModel} at http://localhost:11434/v1 (Chat Completions, no key)`,
    });
  });

  it('lets --provider and --model override the environment', async () => {
    const env = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', ANTHROPIC_MODEL: 'claude-x' };
    expect(chosen(await selectProvider({ provider: 'openai', model: 'gpt-x', env }))).toMatchObject({
      name: 'openai',
      model: 'gpt-x',
    });
    expect(chosen(await selectProvider({ provider: 'anthropic', env }))).toMatchObject({ model: 'claude-x' });
    expect(chosen(await selectProvider({ provider: 'openai-responses', env }))).toEqual({
      name: 'openai',
      model: defaultOpenAIModel,
      description: `OpenAI-compatible ${defaultOpenAIModel} (Responses API, key from OPENAI_API_KEY)`,
    });
  });

  it('explains how to configure a model when nothing is set, and points at the demo', async () => {
    const text = refused(await selectProvider({ env: { ANTHROPIC_API_KEY: '  ' } }));
    expect(text).not.toContain('\n');
    expect(text).toMatch(/^no model is configured: /);
    expect(text).toMatch(/ANTHROPIC_API_KEY/);
    expect(text).toMatch(/OPENAI_API_KEY/);
    expect(text).toMatch(/OPENAI_BASE_URL/);
    expect(text).toMatch(/`agentchart demo`/);
  });

  it('refuses a named provider whose key is missing', async () => {
    expect(
      refused(await selectProvider({ provider: 'anthropic', env: { OPENAI_API_KEY: 'o' } })).split('\n')[0],
    ).toBe('--provider anthropic needs ANTHROPIC_API_KEY to be set: export ANTHROPIC_API_KEY=sk-ant-...');
    expect(refused(await selectProvider({ provider: 'openai', env: {} })).split('\n')[0]).toBe(
      '--provider openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server): export OPENAI_API_KEY=sk-...',
    );
  });

  it('refuses --provider scripted for run, and unknown providers', async () => {
    expect(refused(await selectProvider({ provider: 'scripted', env: { ANTHROPIC_API_KEY: 'a' } }))).toMatch(
      /^--provider scripted cannot run a task: .*`agentchart demo`/,
    );
    expect(refused(await selectProvider({ provider: 'gemini', env: {} }))).toBe(
      'unknown provider "gemini": use one of anthropic, openai, openai-responses.',
    );
  });
});

describe('describeProviderError', () => {
  it('turns a rejected key into one plain line naming the variable', () => {
    const error = new ProviderError({ kind: 'auth', message: '401 invalid x-api-key', status: 401 });
    expect(describeProviderError(error, 'anthropic')).toBe(
      'the API key was rejected (401): check ANTHROPIC_API_KEY',
    );
    expect(describeProviderError(error.toJSON(), 'openai')).toBe(
      'the API key was rejected (401): check OPENAI_API_KEY',
    );
  });

  it('describes the other kinds in one line each', () => {
    const lines = (
      [
        ['rate_limit', 429],
        ['overloaded', 529],
        ['server', 500],
        ['network', undefined],
        ['context_overflow', 400],
        ['bad_request', 404],
        ['quota', 429],
        ['invalid_output', 400],
        ['aborted', undefined],
      ] as const
    ).map(([kind, status]) =>
      describeProviderError(new ProviderError({ kind, message: 'details', ...(status ? { status } : {}) })),
    );
    expect(lines).toEqual([
      'the provider is rate limiting requests (429); wait a little and try again',
      'the model is overloaded (529); try again in a few minutes',
      'the model server failed (500): details',
      'could not reach the model server: details',
      "the conversation no longer fits the model's context window (400): details",
      'the model server refused the request (404): details',
      'the account may not spend more (429): details (check your plan, quota or billing)',
      'the server refused what the model generated (400), twice: details',
      'the request was cancelled',
    ]);
  });
});

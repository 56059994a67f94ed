// The bill: list prices by exact model id (or the id with a release date), none for a model or server
// agentchart does not know, overrides checked where they enter, and the estimate in the run result, the
// CLI's lines and `/cost`, from the prices `session.start` recorded. A session of an Anthropic model on the
// wire (prompt cache markers, prices recorded) replays byte for byte.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { costReport } from '../../src/cli/chat/slash-commands.ts';
import { formatUsage } from '../../src/cli/terminal/render.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { anthropic } from '../../src/providers/anthropic.ts';
import { openai } from '../../src/providers/openai.ts';
import { anthropicPrices, estimateCost, openaiPrices } from '../../src/providers/prices.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { type AnthropicServer, startAnthropicServer } from '../support/wire/anthropic-server.ts';

describe('list prices', () => {
  it('are found by the exact id or the id with a release date, never by a longer name', () => {
    expect(anthropicPrices('claude-sonnet-4-5', '5m')).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(anthropicPrices('claude-sonnet-4-5-20250929', '1h')?.cacheWrite).toBe(6);
    expect(anthropicPrices('claude-sonnet-4-20250514', '5m')?.input).toBe(3);
    expect(anthropicPrices('claude-sonnet-4-5-experimental', '5m')).toBeUndefined();
    expect(openaiPrices('gpt-4.1-2025-04-14')).toEqual({
      input: 2,
      output: 8,
      cacheRead: 0.5,
      cacheWrite: 2,
    });
    expect(openaiPrices('gpt-4.1-mini')?.input).toBe(0.4);
    expect(openaiPrices('gpt-4.1-turbo')).toBeUndefined();
  });

  it("are the adapter's default, none behind a server that is not the vendor's, and a host can override them", () => {
    expect(anthropic({ model: 'claude-haiku-4-5', cacheControl: { ttl: '1h' } }).prices?.cacheWrite).toBe(2);
    expect(anthropic({ model: 'some-claude' }).prices).toBeUndefined();
    expect(openai({ model: 'gpt-4.1' }).prices?.input).toBe(2);
    expect(openai({ model: 'gpt-4.1', baseURL: 'http://localhost:8000/v1' }).prices).toBeUndefined();
    const own = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1 };
    expect(openai({ model: 'qwen3', baseURL: 'http://localhost:8000/v1', prices: own }).prices).toEqual(own);
    expect(anthropic({ model: 'claude-sonnet-4-5', prices: false }).prices).toBeUndefined();
    expect(() => anthropic({ model: 'm', prices: { input: -1 } as never })).toThrow(ConfigError);
  });

  it('price each kind of token at its own rate', () => {
    const usage = {
      inputTokens: 1_000,
      cacheWriteTokens: 10_000,
      cacheReadTokens: 100_000,
      outputTokens: 500,
    };
    const prices = anthropicPrices('claude-sonnet-4-5', '5m')!;
    // 1k × $3 + 10k × $3.75 + 100k × $0.30 + 500 × $15, per million.
    expect(estimateCost(usage, prices)).toBeCloseTo(0.003 + 0.0375 + 0.03 + 0.0075, 10);
    expect(formatUsage(usage, prices)).toBe(
      'tokens in 1000 · cache write 10000 · cache read 100000 · out 500 · ≈ $0.0780',
    );
    expect(formatUsage({ ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBe(
      'tokens in 1000 · out 500',
    );
  });
});

describe('a session on the wire', () => {
  let server: AnthropicServer;
  beforeEach(async () => {
    server = await startAnthropicServer();
  });
  afterEach(() => server.close());

  it('records its caching and prices, bills each turn, and replays byte for byte', async () => {
    server.reply({ turn: { text: ['First.'], usage: { input: 50, cacheWrite: 2_000, output: 10 } } });
    server.reply({
      turn: { text: ['Second.'], usage: { input: 40, cacheRead: 2_000, cacheWrite: 60, output: 13 } },
    });
    const host = createAgentSystem({
      model: anthropic({ model: 'claude-sonnet-5', apiKey: 'k', baseURL: server.url }),
      ids: counterIds(),
      clock: tickingClock(Date.UTC(2026, 11, 7)),
      projectInstructions: false,
    });
    const agent = await host.createAgent({ id: 'a', instructions: 'Be brief.' });
    const first = await agent.run('One.');
    const second = await agent.run('Two.');
    const config = agent.log()[0]!.data.config as Record<string, unknown>;
    expect(config.promptCache).toEqual({ ttl: '5m' });
    expect(config.prices).toEqual({ input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 });
    expect(first.costUsd).toBeCloseTo((50 * 2 + 2_000 * 2.5 + 10 * 10) / 1e6, 12);
    expect(second.usage).toEqual({
      inputTokens: 40,
      cacheReadTokens: 2_000,
      cacheWriteTokens: 60,
      outputTokens: 13,
    });
    expect(costReport(agent)).toBe(
      'This session so far: tokens in 90 · cache write 2060 · cache read 2000 · out 23 · ≈ $0.0060 · 48% of input read from cache',
    );
    // The second request marks where the first ended (its only message), so it reads what that one wrote.
    const marked = server.requests.map((request) => {
      const messages = (request.body as { messages: { content: { cache_control?: unknown }[] }[] }).messages;
      return messages.map((message) => message.content.some((block) => block.cache_control !== undefined));
    });
    expect(marked).toEqual([[true], [true, false, true]]);
    const recorded = agent.log();
    await host.dispose();
    const replayed = await replaySession(recorded);
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
  });
});

// The token rows of `npm run bench` (alone: `npm run bench:tokens`): a 40-step scripted coding session —
// four turns of nine file reads and an answer, the files growing, the first turn compacted after the
// second — sent through the real Anthropic adapter to a local server in Anthropic's streaming format that
// bills like Anthropic's prompt cache (bench/cache-billing.ts), once with the adapter's cache markers and
// once with `cacheControl: false`. The bill is in list prices of Claude Sonnet 5. The same session through
// the OpenAI adapter shows which `prompt_cache_key`s its requests carried.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { SimulatedClock } from '../src/core/clock.ts';
import { anthropic } from '../src/providers/anthropic.ts';
import { openai } from '../src/providers/openai.ts';
import type { Provider } from '../src/providers/types.ts';
import { createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { summaryInstruction } from '../src/session/compaction-request.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { defineTool } from '../src/tools/define-tool.ts';
import { type CacheBill, PromptCache } from './cache-billing.ts';

const turns = 4;
const readsPerTurn = 9;
const stepMs = 15_000;
// Claude Sonnet 5: $2 input, $2.50 5-minute cache write, $0.20 cache read per million tokens.
const price = { input: 2, written: 2.5, read: 0.2 };

const readSource = defineTool({
  name: 'read_source',
  description: 'Read a source file of the project.',
  access: 'read',
  concurrencySafe: true,
  input: z.object({ path: z.string() }),
  // Files grow as the session goes on: later reads return more.
  run: async ({ path }) => {
    const n = Number(/\d+/.exec(path)?.[0] ?? 0);
    const line = `export const value${n} = compute(${n}); // ${'x'.repeat(40)}\n`;
    return line.repeat(20 + n * 2);
  },
});

type Sent = { messages: { content: string | { type: string; text?: string }[] }[] };

function isSummaryAsk(body: Sent): boolean {
  const content = body.messages.at(-1)?.content;
  const text = typeof content === 'string' ? content : content?.at(-1)?.text;
  return text?.startsWith(summaryInstruction) ?? false;
}

/** What the model says at step `step` of the session: reads, and an answer to close each turn. */
function answer(step: number): { text: string } | { call: { name: string; input: unknown } } {
  if (step % (readsPerTurn + 1) === readsPerTurn) return { text: `Turn ${step} read everything it needed.` };
  return { call: { name: 'read_source', input: { path: `src/module-${step}.ts` } } };
}

const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function anthropicReply(reply: ReturnType<typeof answer>, bill: CacheBill, step: number): string {
  const usage = {
    input_tokens: bill.uncached,
    cache_creation_input_tokens: bill.written,
    cache_read_input_tokens: bill.read,
    output_tokens: 1,
  };
  const message = {
    id: `msg_${step}`,
    type: 'message',
    role: 'assistant',
    model: 'bench',
    content: [],
    usage,
  };
  const block =
    'text' in reply
      ? [
          sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } }),
        ]
      : [
          sse('content_block_start', {
            index: 0,
            content_block: { type: 'tool_use', id: `toolu_${step}`, name: reply.call.name, input: {} },
          }),
          sse('content_block_delta', {
            index: 0,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.call.input) },
          }),
        ];
  const stop = 'text' in reply ? 'end_turn' : 'tool_use';
  return [
    sse('message_start', { message }),
    ...block,
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }),
    sse('message_stop', {}),
  ].join('');
}

function chatReply(reply: ReturnType<typeof answer>, step: number): string {
  const chunk = (delta: unknown, finish: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({ id: `c${step}`, object: 'chat.completion.chunk', model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  const delta =
    'text' in reply
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${step}`,
              type: 'function',
              function: { name: reply.call.name, arguments: JSON.stringify(reply.call.input) },
            },
          ],
        };
  const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
  return `${chunk(delta, null)}${chunk({}, 'text' in reply ? 'stop' : 'tool_calls', usage)}data: [DONE]\n\n`;
}

type Recorder = { bills: { bill: CacheBill; summary: boolean }[]; keys: unknown[] };

/** A local server of both formats, on a clock that moves `stepMs` per request. */
async function startServer(recorder: Recorder, clock: SimulatedClock) {
  const cache = new PromptCache();
  let step = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Sent & Record<string, unknown>;
      clock.advance(stepMs);
      const summary = isSummaryAsk(body);
      const reply = summary ? { text: 'Turn one read modules 0 to 8.' } : answer(step++);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (request.url?.endsWith('/chat/completions')) {
        recorder.keys.push(body.prompt_cache_key);
        response.end(chatReply(reply, step));
        return;
      }
      const bill = cache.bill(body as never, clock.now());
      recorder.bills.push({ bill, summary });
      response.end(anthropicReply(reply, bill, step));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function session(model: (url: string) => Provider): Promise<Recorder> {
  const recorder: Recorder = { bills: [], keys: [] };
  const clock = new SimulatedClock(Date.UTC(2026, 11, 7));
  const server = await startServer(recorder, clock);
  const system = createAgentSystem({
    model: model(server.url),
    tools: [readSource],
    store: memoryStore(),
    clock,
    permissionMode: 'bypass',
    projectInstructions: false,
    compaction: { keepRecentTurns: 1 },
  });
  try {
    const agent = await system.createAgent({ instructions: codingAgentPrompt });
    for (let turn = 1; turn <= turns; turn++) {
      await agent.run(
        `Read modules ${(turn - 1) * 10} to ${(turn - 1) * 10 + 8} and tell me what they hold.`,
      );
      if (turn === 2) await agent.compact();
    }
  } finally {
    await system.dispose();
    await server.close();
  }
  return recorder;
}

// A system prompt of the size coding agents send (instructions, conventions, tool etiquette).
const codingAgentPrompt = Array.from(
  { length: 60 },
  (_, index) =>
    `Rule ${index + 1}: read before you edit, keep changes small, and say what you changed and why.`,
).join('\n');

const total = (bills: CacheBill[]) =>
  bills.reduce(
    (sum, bill) => ({
      uncached: sum.uncached + bill.uncached,
      written: sum.written + bill.written,
      read: sum.read + bill.read,
    }),
    { uncached: 0, written: 0, read: 0 },
  );
const dollars = (bill: CacheBill) =>
  (bill.uncached * price.input + bill.written * price.written + bill.read * price.read) / 1e6;
const share = (bill: CacheBill) => bill.read / (bill.uncached + bill.written + bill.read);

export type TokenRows = { rows: string[]; readShare: number; summaryShare: number; billRatio: number };

/** Runs the session marked and unmarked (and through OpenAI), and the table rows of what they cost. */
export async function tokenEconomyRows(): Promise<TokenRows> {
  const apiKey = 'bench';
  const marked = await session((url) => anthropic({ model: 'claude-sonnet-5', apiKey, baseURL: url }));
  const plain = await session((url) =>
    anthropic({ model: 'claude-sonnet-5', apiKey, baseURL: url, cacheControl: false }),
  );
  const viaOpenAI = await session((url) =>
    openai({ model: 'gpt-bench', apiKey, baseURL: `${url}/v1`, promptCacheKey: true }),
  );
  const withMarks = total(marked.bills.map((entry) => entry.bill));
  const without = total(plain.bills.map((entry) => entry.bill));
  const summary = total(marked.bills.filter((entry) => entry.summary).map((entry) => entry.bill));
  const keys = new Set(viaOpenAI.keys);
  const fmt = (value: number) => value.toLocaleString('en-US');
  const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
  const rows = [
    `| requests (40 steps and one summary) | ${marked.bills.length} | ${plain.bills.length} |`,
    `| input tokens billed uncached / written / read | ${fmt(withMarks.uncached)} / ${fmt(withMarks.written)} / ${fmt(withMarks.read)} | ${fmt(without.uncached)} / ${fmt(without.written)} / ${fmt(without.read)} |`,
    `| share of input read from cache | ${pct(share(withMarks))} | ${pct(share(without))} |`,
    `| the summary request: share read from cache | ${pct(share(summary))} | |`,
    `| input bill at Claude Sonnet 5 list prices | $${dollars(withMarks).toFixed(4)} (${(dollars(withMarks) / dollars(without)).toFixed(2)}×) | $${dollars(without).toFixed(4)} |`,
    `| OpenAI adapter: distinct prompt_cache_key values over ${viaOpenAI.keys.length} requests | ${keys.size} (${[...keys].join(', ')}) | |`,
  ];
  return {
    rows,
    readShare: share(withMarks),
    summaryShare: share(summary),
    billRatio: dollars(withMarks) / dollars(without),
  };
}

/** The token table as `npm run bench` prints it. */
export async function printTokenTable(): Promise<void> {
  const { rows } = await tokenEconomyRows();
  console.log(
    "| 40-step coding session, Anthropic-style prompt cache (bench/token-economy.ts) | with the adapter's markers | cacheControl: false |",
  );
  console.log('|---|--:|--:|');
  for (const row of rows) console.log(row);
}

if (import.meta.url === `file://${process.argv[1]}`) await printTokenTable();

// Tools of your own, with approvals: the model reads the balance freely, and every transfer asks you
// first on the terminal. A "no" reaches the model as the tool's result, with your reason.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/approvals.ts
import { createInterface } from 'node:readline/promises';
import { createAgentSystem, defineTool } from 'agentchart';
import { openai } from 'agentchart/openai';
import { z } from 'zod';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const balance = defineTool({
  name: 'balance',
  description: 'The balance of the account, in euros.',
  access: 'read', // reads run without asking
  input: z.object({}),
  run: async () => '1200',
});
const transfer = defineTool({
  name: 'transfer',
  description: 'Sends euros to someone.',
  access: 'write', // writes ask the approver (in the default permission mode)
  input: z.object({ to: z.string(), amount: z.number().positive() }),
  run: async ({ to, amount }) => `Sent ${amount} euros to ${to}.`,
});

const terminal = createInterface({ input: process.stdin, output: process.stdout });
const system = createAgentSystem({
  model,
  tools: [balance, transfer],
  approve: async ({ tool, input }) => {
    const answer = await terminal.question(`Allow ${tool} ${JSON.stringify(input)}? [y/N] `);
    return answer.trim() === 'y' ? 'allow' : { outcome: 'deny', reason: 'the account owner said no' };
  },
});
const agent = await system.createAgent();
const result = await agent.run(process.argv[2] ?? 'Pay alice 50 euros and bob 5000 euros.');
console.log(`\n${result.text}`);
terminal.close();
await system.dispose();

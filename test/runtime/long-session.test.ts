// A long session on a small window: 300 steps through the real runtime, the model reporting realistic
// usage and refusing what does not fit. Automatic compaction keeps every request inside the window.
import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { isEvent } from '../../src/session/types.ts';
import { counterIds, echoTool } from '../support/crash-kit.ts';
import {
  expectCallsPaired,
  projectionsAfterCompactions,
  requestTokens,
  windowModel,
} from '../support/window-model.ts';

const window = 4_000;
// Most turns take 10 steps; two take 40, more than the window holds on their own, so the planner must
// also compact inside a running turn.
const turnLengths = [
  10, 10, 10, 40, 10, 10, 10, 10, 40, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
];

describe('a 300-step session on a 4,000-token window', () => {
  it('completes every turn with several compactions, no overflow, and every request inside the window', async () => {
    expect(turnLengths.reduce((sum, length) => sum + length, 0)).toBe(300);
    let turn = 0;
    let stepInTurn = 0;
    const model = windowModel(window, () => {
      stepInTurn++;
      if (stepInTurn === turnLengths[turn]) return { text: `Turn ${turn + 1} is done.` };
      const text = `note ${turn + 1}.${stepInTurn} `.repeat(12);
      return { text: 'Next.', toolCalls: [{ name: 'echo', input: { text } }] };
    });
    const system = createAgentSystem({
      model,
      tools: [echoTool],
      ids: counterIds(),
      projectInstructions: false,
      permissionMode: 'bypass',
      limits: { maxSteps: 50 },
    });
    const agent = await system.createAgent({ id: 'long' });
    for (turn = 0; turn < turnLengths.length; turn++) {
      stepInTurn = 0;
      const result = await agent.run(`Task ${turn + 1}: keep taking notes.`);
      expect(result).toMatchObject({ reason: 'completed', text: `Turn ${turn + 1} is done.` });
    }
    const log = agent.log();
    await system.dispose();

    const answers = log.filter((event) => isEvent(event, 'assistant.message'));
    expect(answers).toHaveLength(300);
    expect(log.filter((event) => event.type === 'assistant.attempt')).toEqual([]);
    const tokens = model.requests.map(requestTokens);
    expect(Math.max(...tokens)).toBeLessThanOrEqual(window);
    const compactions = log.filter((event) => isEvent(event, 'compaction'));
    expect(compactions.length).toBeGreaterThanOrEqual(5);
    expect(model.requests.filter(isCompactionRequest)).toHaveLength(compactions.length);
    // Each compaction reaches further than the one before and starts at the top of the conversation.
    const ranges = compactions.map((event) => event.data.replaces as [number, number]);
    expect(
      ranges.every(
        ([from], index) => from === 1 && (index === 0 || ranges[index - 1]![1] < ranges[index]![1]),
      ),
    ).toBe(true);
    // Inside the long turns the planner kept the latest step and summarised the rest of the turn.
    const turnStartOf = (seq: number) =>
      log.findLast((event) => event.type === 'turn.start' && event.seq <= seq)!.seq;
    const midTurn = compactions.filter(
      (event) => (event.data.replaces as number[])[1]! >= turnStartOf(event.seq),
    );
    expect(midTurn.length).toBeGreaterThan(0);
    const triggers = new Set(compactions.map((event) => event.data.trigger));
    expect([...triggers]).toEqual(['auto']);
    let paired = 0;
    for (const messages of projectionsAfterCompactions(log)) paired += expectCallsPaired(messages);
    expect(paired).toBeGreaterThan(0);
    // The turns count what the summaries cost.
    const turnUsage = log
      .filter((event) => event.type === 'turn.end')
      .map((event) => (event.data.usage as { inputTokens: number }).inputTokens);
    const charged = turnUsage.reduce((sum, value) => sum + value, 0);
    expect(charged).toBe(tokens.reduce((sum, value) => sum + value, 0));
  });
});

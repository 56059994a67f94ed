// Where the environment block goes: a user message where it was logged, so the system prompt (and the
// cached prefix) stays the same; logged again when a compaction hid it; and after the system prompt in a
// session recorded before blocks were messages, which replays as it was sent.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fnv1a } from '../../src/core/hash.ts';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { summaryPrefix } from '../../src/session/projection.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';

const start = Date.UTC(2026, 11, 1, 8);
const blocks = (log: readonly LogEvent[]) =>
  log.filter((event) => event.type === 'environment').map((event) => [event.turn, event.data.placement]);

describe('the environment block in the conversation', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'agentchart-placement-')));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  const system = (model: ReturnType<typeof scripted>) =>
    createAgentSystem({
      model,
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(start),
      projectInstructions: false,
      environment: true,
      compaction: { keepRecentTurns: 1 },
    });

  it('a compaction that hid the block has it logged again on the next turn, after the summary', async () => {
    const model = scripted([{ text: 'one' }, { text: 'two' }, { text: 'Summary.' }, { text: 'three' }]);
    const host = system(model);
    const agent = await host.createAgent({ id: 'a', instructions: 'Be brief.' });
    await agent.run('first');
    await agent.run('second');
    expect(await agent.compact()).toMatchObject({ compacted: true });
    await agent.run('third');
    // Unchanged (no git here), yet logged again (turn 3 was the compaction): the model no longer read it.
    expect(blocks(agent.log())).toEqual([
      [1, 'message'],
      [4, 'message'],
    ]);
    const block = agent.log().find((event) => event.type === 'environment')!.data.text as string;
    const last = model.requests.at(-1)!;
    expect(last.system).toBe('Be brief.');
    expect(
      last.messages.map((message) => (message.role === 'user' ? message.content : message.role)),
    ).toEqual([`${summaryPrefix}Summary.`, 'second', 'assistant', 'third', block]);
    await host.dispose();
  });

  it('a session recorded with the block after the system prompt replays byte for byte, sent as it was', async () => {
    const host = system(scripted([{ text: 'one' }, { text: 'two' }]));
    const agent = await host.createAgent({ id: 'a', instructions: 'Be brief.' });
    await agent.run('first');
    await agent.run('second');
    const recorded = agent.log();
    await host.dispose();
    // The same session as an older agentchart wrote it: no placement, and the block in the prompt's hash.
    const block = recorded.find((event) => event.type === 'environment')!.data.text as string;
    const tools = JSON.stringify((recorded[0]!.data.config as { tools: unknown }).tools);
    const legacyHash = fnv1a(`Be brief.\n\n${block}\n${tools}`).toString(16).padStart(8, '0');
    const legacy = recorded.map((event): LogEvent => {
      if (event.type === 'environment') return { ...event, data: { text: event.data.text } };
      if (event.type === 'step.start') return { ...event, data: { ...event.data, systemHash: legacyHash } };
      return event;
    });
    expect(legacy.some((event, index) => event !== recorded[index])).toBe(true);
    const replayed = await replaySession(legacy);
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(legacy, replayed.events);
  });
});

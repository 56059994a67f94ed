// A session recorded with hooks at every wired point (in-process and a command hook) replays byte for byte
// without running a single hook: each hook point answers with the decisions the recording logged.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hooks } from '../../src/hooks/hook-types.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { assertSameLog } from '../../src/session/compare-logs.ts';
import { echoCall, echoTool, hookedAgent, hookTrail } from './hook-kit.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentchart-hook-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('replay of a session with hook decisions', () => {
  it('re-runs byte for byte and runs no hook', async () => {
    const marks = join(dir, 'post.ran');
    const postScript = join(dir, 'post.mjs');
    writeFileSync(
      postScript,
      `import { appendFileSync, readFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\nappendFileSync(${JSON.stringify(marks)}, input.tool_use_id + '\\n');\nprocess.stdout.write(JSON.stringify({ hookSpecificOutput: { additionalContext: 'post hook was here' } }));\n`,
    );
    const calls: string[] = [];
    const hooks = (tag: string): Hooks => ({
      userMessage: [
        () => {
          calls.push(`${tag}:userMessage`);
          return { message: 'rewritten prompt' };
        },
      ],
      preTool: [
        ({ toolInput }) => {
          calls.push(`${tag}:preTool`);
          const text = (toolInput as { text: string }).text;
          return text === 'no' ? { decision: 'deny', reason: 'refused' } : { input: { text: `${text}+` } };
        },
      ],
      postTool: [{ type: 'command', command: `node ${postScript}` }],
      stop: [
        ({ refusals }) => {
          calls.push(`${tag}:stop`);
          return refusals === 0 ? { decision: 'block', reason: 'One more step.' } : undefined;
        },
      ],
    });
    const { agent, system } = await hookedAgent(
      [
        { toolCalls: [echoCall('c1', 'yes'), echoCall('c2', 'no')] },
        { text: 'first end' },
        { text: 'second end' },
      ],
      { hooks: hooks('live') },
    );
    await agent.run('original prompt');
    await system.dispose();
    const recorded = [...agent.log()];
    expect(hookTrail(recorded)).toEqual([
      'userMessage userMessage[0] modify',
      'preTool preTool[0] modify',
      'preTool preTool[0] deny: refused',
      `postTool node ${postScript} modify`,
      'stop stop[0] block: One more step.',
      'stop stop[0] pass',
    ]);
    expect(readFileSync(marks, 'utf8')).toBe('c1\n');
    const liveCalls = calls.length;

    const ran: string[] = [];
    const replayed = await replaySession(recorded, {
      setup: { tools: [echoTool(ran)], hooks: hooks('replay') },
    });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
    expect(replayed.events).toHaveLength(recorded.length);
    // No hook ran again: neither the functions nor the command; the tool ran with the logged rewrite.
    expect(calls).toHaveLength(liveCalls);
    expect(calls.filter((call) => call.startsWith('replay'))).toEqual([]);
    expect(readFileSync(marks, 'utf8')).toBe('c1\n');
    expect(ran).toEqual(['yes+']);
  });
});

// How the terminal transcript shows a hook's decision: Claude Code's `systemMessage` is for the person, so it
// is printed under the decision (the model never reads it).
import { describe, expect, it } from 'vitest';
import { TranscriptRenderer } from '../../src/cli/terminal/render.ts';
import type { LogEvent } from '../../src/session/types.ts';

describe('the transcript of a hook decision', () => {
  it("shows the decision and, under it, the hook's systemMessage", () => {
    let text = '';
    const renderer = new TranscriptRenderer({ write: (chunk: string) => (text += chunk) }, false);
    const event: LogEvent = {
      v: 1,
      seq: 3,
      ts: 1,
      type: 'hook.decided',
      turn: 1,
      step: 1,
      data: {
        point: 'stop',
        hook: 'stop-hook.sh',
        outcome: 'block',
        reason: 'Build it.',
        systemMessage: '🔄 iteration 2',
      },
    };
    renderer.event({ type: 'log', agentId: 'a', event });
    expect(text).toBe('⚑ stop hook stop-hook.sh block: Build it.\n  🔄 iteration 2\n');
  });
});

// The transcript a command hook finds at `transcript_path`: Claude Code's JSONL, derived from the log.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeTranscript } from '../../src/hooks/claude-transcript.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { hookedAgent } from './hook-kit.ts';

const event = (seq: number, type: LogEvent['type'], data: Record<string, unknown>): LogEvent => ({
  v: 1,
  seq,
  ts: 1_000 + seq,
  type,
  data,
});

describe('claudeTranscript', () => {
  it('writes one compact JSON object per message, in Claude Code names, and nothing for other events', () => {
    const events = [
      event(1, 'session.start', { agentId: 's', config: {} }),
      event(2, 'user.message', { channel: 'followup', content: 'fix it' }),
      event(3, 'assistant.message', {
        text: 'Reading.',
        toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'a.ts' } }],
        usage: {},
        stopReason: 'tool_use',
      }),
      event(4, 'tool.result', { callId: 'c1', outcome: 'ok', content: 'x = 1' }),
      event(5, 'assistant.message', { text: 'Done.', toolCalls: [], usage: {}, stopReason: 'end_turn' }),
    ];
    const lines = claudeTranscript(events, 's', '/w').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual([
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
        uuid: 's:2',
        sessionId: 's',
        cwd: '/w',
        timestamp: '1970-01-01T00:00:01.002Z',
      },
      {
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'c1', name: 'Read', input: { file_path: '/w/a.ts' } },
          ],
        },
        uuid: 's:3',
        sessionId: 's',
        cwd: '/w',
        timestamp: '1970-01-01T00:00:01.003Z',
      },
      expect.objectContaining({
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'x = 1', is_error: false }],
        },
      }),
      expect.objectContaining({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      }),
    ]);
    // What ralph-wiggum's stop-hook.sh greps for: compact, no space after the colon.
    expect(lines.filter((line) => line.includes('"role":"assistant"'))).toHaveLength(2);
  });
});

describe('transcript_path', () => {
  it('is a file outside the workspace, written before the hook runs and removed by dispose', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'agentchart-transcript-'));
    try {
      // The Stop hook keeps what it found: the path and a copy of the file.
      const hook = `node -e "const fs=require('fs'); const i=JSON.parse(fs.readFileSync(0,'utf8')); fs.writeFileSync('seen.json', JSON.stringify({ path: i.transcript_path, text: fs.readFileSync(i.transcript_path,'utf8') }))"`;
      const { agent, system } = await hookedAgent([{ text: 'all done' }], {
        cwd: workspace,
        hooks: { stop: [{ type: 'command', command: hook }] },
      });
      await agent.run('hello');
      const seen = JSON.parse(await readFile(join(workspace, 'seen.json'), 'utf8')) as {
        path: string;
        text: string;
      };
      expect(seen.path.startsWith(workspace)).toBe(false);
      expect(existsSync(seen.path)).toBe(true);
      expect(seen.text).toBe(claudeTranscript(agent.log(), 'a', workspace));
      expect(seen.text).toContain('{"role":"assistant","content":[{"type":"text","text":"all done"}]}');
      await system.dispose();
      expect(existsSync(seen.path)).toBe(false);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

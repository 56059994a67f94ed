// @modelcontextprotocol/server-filesystem (a real third-party server, stdio) as the read-only concurrency
// check: its readOnlyHint tools run side by side, its writing tools run alone and ask where writes ask.
import { realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { filesystemStdio, tempDir } from '../support/mcp-servers.ts';
import { mcpRig, results } from './mcp-kit.ts';

/** The tool lines of one step, shortened: `started c1`, `result c1`. */
const toolLines = (log: readonly LogEvent[]) =>
  log.flatMap((event) =>
    isEvent(event, 'tool.started')
      ? [`started ${event.data.callId}`]
      : isEvent(event, 'tool.result')
        ? [`result ${event.data.callId}`]
        : [],
  );

describe('server-filesystem', () => {
  it('runs read-only tools side by side and a write alone', async () => {
    const dir = await realpath(await tempDir('fs'));
    for (const name of ['a', 'b', 'c']) await writeFile(join(dir, `${name}.txt`), `text of ${name}`);
    const read = (id: string, name: string) => ({
      id,
      name: 'mcp__fs__read_text_file',
      input: { path: join(dir, `${name}.txt`) },
    });
    const rig = await mcpRig({ fs: filesystemStdio(dir) }, [
      {
        toolCalls: [
          read('r1', 'a'),
          read('r2', 'b'),
          read('r3', 'c'),
          { id: 'w', name: 'mcp__fs__write_file', input: { path: join(dir, 'd.txt'), content: 'new' } },
          read('r4', 'a'),
        ],
      },
      { text: 'Read and wrote.' },
    ]);
    try {
      await rig.agent.run('Read three files, write one.');
      const got = results(rig.agent.log());
      expect([got.r1, got.r2, got.r3, got.r4]).toEqual([
        ['ok', 'text of a'],
        ['ok', 'text of b'],
        ['ok', 'text of c'],
        ['ok', 'text of a'],
      ]);
      expect(got.w![0]).toBe('ok');
      // The three reads all started before any of them had a result; the write is a barrier.
      expect(toolLines(rig.agent.log())).toEqual([
        'started r1',
        'started r2',
        'started r3',
        'result r1',
        'result r2',
        'result r3',
        'started w',
        'result w',
        'started r4',
        'result r4',
      ]);
      const access = Object.fromEntries(
        rig.agent.mcpServers()[0]!.tools.map((tool) => [tool.name, tool.access]),
      );
      expect([access.mcp__fs__read_text_file, access.mcp__fs__write_file]).toEqual(['read', 'write']);
    } finally {
      await rig.system.dispose();
    }
  });

  it('in plan mode only its read-only tools are offered', async () => {
    const dir = await realpath(await tempDir('fs'));
    const rig = await mcpRig({ fs: filesystemStdio(dir) }, [{ text: 'Planned.' }], {
      permissionMode: 'plan',
      approve: 'deny',
    });
    try {
      await rig.agent.run('Plan.');
      const offered = rig.model.requests[0]!.tools.map((tool) => tool.name);
      expect(offered).toContain('mcp__fs__read_text_file');
      expect(offered).not.toContain('mcp__fs__write_file');
      expect(offered).not.toContain('mcp__fs__move_file');
    } finally {
      await rig.system.dispose();
    }
  });
});

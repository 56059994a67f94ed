import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';
import { readLabelled } from '../support/labelled-lines.ts';

const script = 'test/fixtures/boundary/special-files.ts';

const refused = (content: string) => ({ content, isError: true });
const fifoRead = 'is a named pipe (FIFO), not a regular file; read_file reads regular files only.';

// Opening a FIFO for reading waits for a writer. These run in a child process, killed if it wedges.
describe('file tools on named pipes and sockets', () => {
  it('answer at once with an error result, and searches skip them', async () => {
    const run = await runScript(script, { args: ['tools'], timeoutMs: 20_000 });
    expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({
      timedOut: false,
      code: 0,
      stderr: '',
    });
    expect(readLabelled(run.stdout)).toEqual([
      ['read_file fifo', refused(`pipe ${fifoRead}`)],
      [
        'read_file socket',
        refused('sock is a socket, not a regular file; read_file reads regular files only.'),
      ],
      [
        'write_file fifo',
        refused('pipe is a named pipe (FIFO), not a regular file; write_file writes regular files only.'),
      ],
      [
        'edit_file fifo',
        refused('pipe is a named pipe (FIFO), not a regular file; edit_file edits regular files only.'),
      ],
      [
        'grep fifo (ripgrep)',
        refused('pipe is a named pipe (FIFO); grep searches regular files and folders only.'),
      ],
      [
        'grep fifo (javascript)',
        refused('pipe is a named pipe (FIFO); grep searches regular files and folders only.'),
      ],
      ['grep folder (ripgrep)', { content: 'dir/a.txt:1:needle here', isError: false }],
      ['grep folder (javascript)', { content: 'dir/a.txt:1:needle here', isError: false }],
      ['glob', { content: 'dir/a.txt', isError: false }],
      ['list_dir', { content: 'dir/\npipe\nsock', isError: false }],
    ]);
  });

  it('four FIFO reads in one batch neither exhaust the thread pool nor stop cancel and dispose', async () => {
    const run = await runScript(script, { args: ['agent'], timeoutMs: 20_000 });
    expect({ timedOut: run.timedOut, code: run.code, stderr: run.stderr }).toEqual({
      timedOut: false,
      code: 0,
      stderr: '',
    });
    expect(readLabelled(run.stdout)).toEqual([
      ['run', { reason: 'completed', text: 'Those were pipes.' }],
      // AGENTS.md is a FIFO too: it is skipped, not read.
      ['AGENTS.md in the system prompt', false],
      [
        'results',
        ['p1', 'p2', 'p3', 'p4'].map((name) => ({
          callId: `read_${name}`,
          outcome: 'error',
          content: `${name} ${fifoRead}`,
        })),
      ],
      ['disposed', 'disposed'],
    ]);
  });
});

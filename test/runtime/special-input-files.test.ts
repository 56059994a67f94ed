// The files agentchart reads by itself — session logs, the lock's claim, SKILL.md, settings — when one is a
// named pipe (FIFO), a link to /dev/zero, or far too large. Each is refused at once with a ConfigError that
// names it (a bad SKILL.md is skipped, like any unusable skill), and nothing blocks: before, a FIFO
// wedged the call for ever and /dev/zero ended in a bare RangeError. The cases run in a child process
// (test/fixtures/boundary/special-input-files.ts), killed if it wedges.
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child-run.ts';
import { readLabelled } from '../support/labelled-lines.ts';

const script = 'test/fixtures/boundary/special-input-files.ts';

async function run(mode: string): Promise<[string, unknown][]> {
  const child = await runScript(script, { args: [mode], timeoutMs: 30_000 });
  expect({ timedOut: child.timedOut, code: child.code, stderr: child.stderr }).toEqual({
    timedOut: false,
    code: 0,
    stderr: '',
  });
  return readLabelled(child.stdout);
}

const config = (message: string) => ({ error: 'ConfigError', message });
const sessions = '<base>/sessions';

describe('files agentchart reads that are not regular files, or are too large', () => {
  it('session logs: a FIFO, a link to /dev/zero and a 300 MiB file are ConfigErrors naming them', async () => {
    expect(await run('sessions')).toEqual([
      [
        'fileStore.load pipe',
        config(`cannot read session "pipe": ${sessions}/pipe.jsonl is a named pipe (FIFO), not a file`),
      ],
      [
        'fileStore.load zero',
        config(`cannot read session "zero": ${sessions}/zero.jsonl is a character device, not a file`),
      ],
      [
        'fileStore.load huge',
        config(`cannot read session "huge": ${sessions}/huge.jsonl is 300 MiB, over the limit of 256 MiB`),
      ],
      [
        'resumeAgent pipe',
        config(`cannot read session "pipe": ${sessions}/pipe.jsonl is a named pipe (FIFO), not a file`),
      ],
      [
        'expectReplay file pipe',
        config(`cannot read the recording: ${sessions}/pipe.jsonl is a named pipe (FIFO), not a file`),
      ],
      [
        'inspector recording zero',
        config(`cannot read session "zero": ${sessions}/zero.jsonl is a character device, not a file`),
      ],
      [
        'resumeAgent with a FIFO claim',
        config(
          `session "held" is held by an agent this process cannot identify (${sessions}/held.lock is not a ` +
            `lock it can read); dispose that agent first, or remove ${sessions}/held.lock if no agent holds it`,
        ),
      ],
    ]);
  }, 40_000);

  it('skills: createAgent settles and skips a SKILL.md that is a FIFO, a device or over 1 MiB', async () => {
    const skill = (name: string) => `<base>/ws/.agentchart/skills/${name}/SKILL.md`;
    expect(await run('skills')).toEqual([
      [
        'createAgent',
        {
          value: {
            skills: ['good'],
            skipped: [
              { file: skill('huge'), problem: 'it is 2 MiB, over the limit of 1 MiB' },
              { file: skill('pipe'), problem: 'it is a named pipe (FIFO), not a file' },
              { file: skill('zero'), problem: 'it is a character device, not a file' },
            ],
          },
        },
      ],
      [
        'skill tool on a FIFO',
        {
          value: {
            content: 'The SKILL.md of skill "swapped" is a named pipe (FIFO), not a file.',
            isError: true,
          },
        },
      ],
    ]);
  }, 40_000);

  it('settings: createAgentSystem refuses a settings file that is a FIFO, a device or over 1 MiB', async () => {
    expect(await run('settings')).toEqual([
      ['settings pipe.json', config('the settings file <base>/pipe.json is a named pipe (FIFO), not a file')],
      ['settings zero.json', config('the settings file <base>/zero.json is a character device, not a file')],
      ['settings huge.json', config('the settings file <base>/huge.json is 3 MiB, over the limit of 1 MiB')],
    ]);
  }, 40_000);
});

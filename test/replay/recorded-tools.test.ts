// Recorded tools (the default replay): the host's own tools are stand-ins answering from the log, a call the
// log has no result for is a divergence naming it, and live tools in another folder see paths mapped onto it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { mapFolder } from '../../src/runtime/workspace-paths.ts';
import { parseLogText } from '../../src/session/log-text.ts';
import { fixturePath, scenarios } from './scenarios.ts';

describe('replay with recorded tools', () => {
  it.each(scenarios)('passes on the fixture $name without the host giving its tools', async (scenario) => {
    await expectReplay(fixturePath(scenario.name), { ...scenario.options });
  });

  it('names a call the recording has no result for (a session that ended while the call ran)', async () => {
    const text = await readFile(fixturePath('parallel-retry-unknown'), 'utf8');
    const all = parseLogText(text, 'fixture').events;
    const cut = all.slice(
      0,
      all.findIndex((event) => event.type === 'tool.result'),
    );
    const error = await expectReplay(cut).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const { seq, recordedType, replayedType, reason } = error as ReplayDivergenceError;
    expect({ seq, recordedType, replayedType, reason }).toEqual({
      seq: cut.length,
      recordedType: undefined,
      replayedType: 'tool.result',
      reason: 'lookup call c1 is not in the recording (no tool.result to answer it with)',
    });
  });

  it('refuses a workspace for recorded tools (they do not run)', async () => {
    await expect(expectReplay(fixturePath('compactions'), { workspace: '/tmp' })).rejects.toThrow(
      'a workspace is for live tools: recorded tools do not run (give tools: "live")',
    );
  });
});

describe('mapFolder', () => {
  it('maps the folder and paths under it in strings and keys, never a longer name that begins with it', () => {
    const value = {
      path: '/home/dev/proj/src/a.js',
      command: 'cd /home/dev/proj && ls /home/dev/project /home/dev/proj.bak',
      url: 'file:///home/dev/proj/test/x.js:5:43',
      list: ['/home/dev/proj', 'In /home/dev/proj.', 7, null],
      nested: { '/home/dev/proj/key': true },
    };
    expect(mapFolder(value, '/home/dev/proj', '/srv/ci/proj')).toEqual({
      path: '/srv/ci/proj/src/a.js',
      command: 'cd /srv/ci/proj && ls /home/dev/project /home/dev/proj.bak',
      url: 'file:///srv/ci/proj/test/x.js:5:43',
      list: ['/srv/ci/proj', 'In /srv/ci/proj.', 7, null],
      nested: { '/srv/ci/proj/key': true },
    });
  });

  it('never maps the filesystem root, and maps a folder given with a trailing slash', () => {
    expect(mapFolder('/etc/passwd', '/', '/srv')).toBe('/etc/passwd');
    expect(mapFolder('/a/b/c', '/a/b/', '/x')).toBe('/x/c');
    expect(mapFolder('test/fixtures/a mytest/fixtures/a', 'test/fixtures', '/w')).toBe(
      '/w/a mytest/fixtures/a',
    );
  });
});

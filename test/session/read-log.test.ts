// `readLog(file)`: the one way a test (or a tool) reads a whole session log, through the same parse and
// checks as the stores; a broken line is a `LogFormatError` naming the file and the line.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import { parseLogText, readLog } from '../../src/session/log-text.ts';

const fixture = new URL('../fixtures/replay/compactions.jsonl', import.meta.url);

describe('readLog', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'agentchart-read-log-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  const fileWith = async (text: string) => {
    const file = join(folder, 's1.jsonl');
    await writeFile(file, text);
    return file;
  };
  const failureOf = (file: string) =>
    readLog(file).then(
      () => undefined,
      (error: unknown) => error,
    );

  it('returns the events of a whole log as the stores parse them', async () => {
    const text = await readFile(fixture, 'utf8');
    const file = await fileWith(text);
    const events = await readLog(file);
    expect(events).toEqual(parseLogText(text, file).events);
    expect(events.map((event) => event.seq)).toEqual(
      text
        .trimEnd()
        .split('\n')
        .map((_, seq) => seq),
    );
  });

  it('refuses a line that is not JSON, naming the file and the line', async () => {
    const lines = (await readFile(fixture, 'utf8')).split('\n');
    lines[2] = '{broken';
    const file = await fileWith(lines.join('\n'));
    const error = await failureOf(file);
    expect(LogFormatError.isInstance(error)).toBe(true);
    expect((error as LogFormatError).message).toMatch(new RegExp(`^${file}: line 3: `));
  });

  it('refuses a torn last line instead of dropping it', async () => {
    const text = await readFile(fixture, 'utf8');
    const file = await fileWith(`${text}{"v":1,"seq":46,"ty`);
    const error = await failureOf(file);
    expect(LogFormatError.isInstance(error)).toBe(true);
    expect((error as LogFormatError).message).toBe(
      `${file}: line 47 was torn (incomplete last write, probably a crash); dropped it ` +
        '(readLog reads a log whole and cuts nothing)',
    );
  });
});

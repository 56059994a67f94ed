// The chat terminal's pure helpers: word wrap for prompts, bracketed-paste parsing, the status line's
// bookkeeping, the live tool line and the printed resume command.
import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/actors/live-event.ts';
import { resumeCommand } from '../../src/cli/chat/session-lookup.ts';
import { type InputPiece, PasteParser } from '../../src/cli/terminal/bracketed-paste.ts';
import { StatusLine } from '../../src/cli/terminal/status-line.ts';
import { liveToolLine, ToolActivity } from '../../src/cli/terminal/tool-activity.ts';
import { wrapChoices, wrapWords } from '../../src/cli/terminal/wrap-words.ts';
import type { LogEvent } from '../../src/session/types.ts';

const choices =
  '  [y] allow once  [a] allow write_file like this for the session  [n] deny (n <reason>: the model reads the reason)';

describe('wrapWords', () => {
  it('breaks between words, keeps the first indent and indents the lines after it', () => {
    expect(wrapWords(choices, 40, '  ')).toEqual([
      '  [y] allow once  [a] allow write_file',
      '  like this for the session  [n] deny (n',
      '  <reason>: the model reads the reason)',
    ]);
  });

  it('never splits a word at any width from 12 to 120, and keeps every word in order', () => {
    const words = choices.trim().split(/\s+/);
    for (let width = 12; width <= 120; width++) {
      const lines = wrapWords(choices, width, '  ');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      expect(lines.flatMap((line) => line.trim().split(/\s+/))).toEqual(words);
    }
  });

  it('breaks a word longer than a line inside it, and leaves short text alone', () => {
    expect(wrapWords('a supercalifragilistic word', 10)).toEqual(['a', 'supercalif', 'ragilistic', 'word']);
    expect(wrapWords('fits', 10)).toEqual(['fits']);
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

describe('wrapChoices', () => {
  const offered = [
    '[y] allow once',
    '[a] allow write_file like this for the session',
    '[n] deny (n <reason>: the model reads the reason)',
  ];

  it('puts whole choices on a line while they fit, and wraps a long one between words', () => {
    expect(wrapChoices(offered, 100)).toEqual([
      '  [y] allow once  [a] allow write_file like this for the session',
      '  [n] deny (n <reason>: the model reads the reason)',
    ]);
    expect(wrapChoices(offered, 40)).toEqual([
      '  [y] allow once',
      '  [a] allow write_file like this for the',
      '      session',
      '  [n] deny (n <reason>: the model reads',
      '      the reason)',
    ]);
  });

  it('fits every width from 16 to 120 without splitting a word', () => {
    const words = offered.flatMap((choice) => choice.split(' '));
    for (let width = 16; width <= 120; width++) {
      const lines = wrapChoices(offered, width);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      expect(lines.flatMap((line) => line.trim().split(/\s+/))).toEqual(words);
    }
  });
});

describe('PasteParser', () => {
  const start = '\u001b[200~';
  const end = '\u001b[201~';

  it('keeps a pasted block whole, newlines and all, apart from the keys typed around it', () => {
    const parser = new PasteParser();
    expect(parser.feed(`ab${start}line one\r\nline two\rthree${end}c\r`)).toEqual<InputPiece[]>([
      { kind: 'typed', text: 'ab' },
      { kind: 'pasted', text: 'line one\nline two\nthree' },
      { kind: 'typed', text: 'c\r' },
    ]);
  });

  it('finds markers split across two chunks anywhere but right after the ESC that starts them', () => {
    const input = `x${start}p\nq${end}y`;
    // A chunk that ends in a lone ESC is the Esc key: it is passed on at once, never held back.
    const splits = Array.from({ length: input.length }, (_, at) => at).filter(
      (at) => at > 0 && input[at - 1] !== '\u001b',
    );
    expect(splits).toHaveLength(input.length - 3);
    for (const at of splits) {
      const parser = new PasteParser();
      const pieces = [...parser.feed(input.slice(0, at)), ...parser.feed(input.slice(at))];
      const typed = pieces.filter((piece) => piece.kind === 'typed').map((piece) => piece.text);
      expect(typed.join('')).toBe('xy');
      expect(pieces.filter((piece) => piece.kind === 'pasted')).toEqual([{ kind: 'pasted', text: 'p\nq' }]);
    }
  });

  it('passes a lone Esc and other escape sequences on at once', () => {
    const parser = new PasteParser();
    expect(parser.feed('\u001b')).toEqual([{ kind: 'typed', text: '\u001b' }]);
    expect(parser.feed('\u001b[A')).toEqual([{ kind: 'typed', text: '\u001b[A' }]);
    // `ESC [` could start a paste: it waits for the next chunk, which says it was an arrow key.
    expect(parser.feed('\u001b[')).toEqual([]);
    expect(parser.feed('B')).toEqual([{ kind: 'typed', text: '\u001b[B' }]);
  });
});

describe('StatusLine', () => {
  const terminal = () => {
    const written: string[] = [];
    return { written, out: { isTTY: true, columns: 30, write: (chunk: string) => written.push(chunk) } };
  };

  it('erases the status before other text, draws it only at the start of a line, and cuts it to the width', () => {
    const { written, out } = terminal();
    const status = new StatusLine(out);
    status.writer.write('streamed');
    expect(status.lineOpen).toBe(true);
    status.show('⠋ bash sleep 4 · 1s');
    status.endLine();
    status.show('⠙ bash a very long command that does not fit · 2s');
    status.writer.write('notice\n');
    expect(written).toEqual([
      'streamed',
      '\n',
      '\r\u001b[2K⠙ bash a very long command t…',
      '\r\u001b[2K',
      'notice\n',
    ]);
    expect(status.writer.lineOpen).toBe(false);
    // Control sequences alone (bracketed paste off, a cursor move) do not open a line.
    status.writer.write('\u001b[?2004l');
    status.writer.write('\u001b[1G');
    expect(status.lineOpen).toBe(false);
    status.writer.write('› ');
    status.writer.write('\u001b[3G');
    expect(status.lineOpen).toBe(true);
  });

  it('draws nothing when not on a terminal, or while it is held back', () => {
    const plain = terminal();
    const status = new StatusLine({ ...plain.out, isTTY: false });
    status.show('⠋ bash · 0s');
    let typing = true;
    const held = terminal();
    const heldStatus = new StatusLine(held.out, () => !typing);
    heldStatus.show('⠋ bash · 0s');
    typing = false;
    heldStatus.show('⠙ bash · 1s');
    expect(plain.written).toEqual([]);
    expect(held.written).toEqual(['\r\u001b[2K⠙ bash · 1s']);
  });
});

describe('liveToolLine', () => {
  it('names the tool and its argument, with whole seconds since it started on the given clock', () => {
    const tool = { name: 'bash', summary: 'sleep 4', startedAt: 10_000 };
    expect(liveToolLine(tool, { now: 13_999, others: 0, frame: '⠹', width: 79 })).toBe('⠹ bash sleep 4 · 3s');
    expect(liveToolLine(tool, { now: 9_000, others: 2, frame: '⠋', width: 79 })).toBe(
      '⠋ bash sleep 4 · 0s (+2 more running)',
    );
  });

  it('cuts the argument summary, never the name or the seconds, to fit the width', () => {
    const tool = { name: 'bash', summary: 'while [ ! -f go ]; do sleep 0.05; done', startedAt: 0 };
    const line = liveToolLine(tool, { now: 12_000, others: 0, frame: '⠹', width: 30 });
    expect(line).toBe('⠹ bash while [ ! -f go … · 12s');
    expect(line.length).toBeLessThanOrEqual(30);
  });
});

describe('ToolActivity', () => {
  const log = (seq: number, ts: number, type: string, data: Record<string, unknown>): LiveEvent =>
    ({ type: 'log', agentId: 'a', event: { v: 1, seq, ts, type, data } as LogEvent }) as LiveEvent;
  const events = [
    log(3, 1_000, 'tool.call', { callId: 'c1', name: 'bash', input: { command: 'sleep 4' } }),
    log(4, 1_500, 'tool.started', { callId: 'c1' }),
    log(5, 5_600, 'tool.result', { callId: 'c1', outcome: 'ok', content: '' }),
  ];
  const run = (isTTY: boolean) => {
    const written: string[] = [];
    const status = new StatusLine({ isTTY, columns: 80, write: (chunk: string) => written.push(chunk) });
    const ticks: (() => void)[] = [];
    const every = (tick: () => void) => {
      ticks.push(tick);
      return () => ticks.splice(ticks.indexOf(tick), 1);
    };
    const activity = new ToolActivity(status, { terminal: isTTY, now: () => 4_700, every });
    activity.event(events[0]!);
    activity.event(events[1]!);
    const before = written.length;
    for (const tick of [...ticks, ...ticks]) tick();
    activity.event(events[2]!);
    expect(ticks).toEqual([]);
    activity.stop();
    return { before, written };
  };

  it('draws the running tool on each tick, seconds on the system clock, and erases it at the result', () => {
    expect(run(true)).toEqual({
      before: 0,
      written: ['\r\u001b[2K⠙ bash sleep 4 · 3s', '\r\u001b[2K⠹ bash sleep 4 · 3s', '\r\u001b[2K'],
    });
  });

  it('writes nothing when the output is not a terminal: no spinner, no redraws', () => {
    expect(run(false)).toEqual({ before: 0, written: [] });
  });
});

describe('resumeCommand', () => {
  const place = {
    sessionId: 'abc',
    dir: '/state/sessions/ws-1',
    workspace: '/work/ws',
    from: '/work/ws',
    defaultFolders: ['/state/sessions/ws-1', '/work/ws/.agentchart/sessions'],
  };

  it('is plain where --resume looks by default, and names --session-dir and --cwd otherwise', () => {
    expect(resumeCommand(place)).toBe('agentchart --resume abc');
    expect(resumeCommand({ ...place, dir: '/tmp/my sessions' })).toBe(
      "agentchart --session-dir '/tmp/my sessions' --resume abc",
    );
    expect(resumeCommand({ ...place, from: '/elsewhere', dir: '/tmp/s' })).toBe(
      'agentchart --cwd /work/ws --session-dir /tmp/s --resume abc',
    );
  });
});

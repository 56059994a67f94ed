import { describe, expect, it } from 'vitest';
import { cutLongOutput } from '../../src/tools/long-output.ts';
import { pageBytes } from '../../src/tools/output-cap.ts';
import { savedOutputName, savedOutputPath } from '../../src/tools/saved-output.ts';

const path = '/agentchart-outputs/s1/1-1-call_1.txt';

describe('cutLongOutput', () => {
  it('keeps whole lines around a note that names the hidden lines and how to read them', () => {
    const content = Array.from({ length: 100 }, (_, index) => `line ${index + 1}\n`).join('');
    const out = cutLongOutput(content, 400, { path });
    const [head, rest] = out.split('\n[... ');
    const [note, tail] = rest!.split('.]\n');
    expect([head, tail]).toEqual([
      Array.from({ length: 13 }, (_, index) => `line ${index + 1}`).join('\n'),
      Array.from({ length: 12 }, (_, index) => `line ${index + 89}\n`).join(''),
    ]);
    expect(note).toBe(
      `${content.length - head!.length - 1 - tail!.length} of ${content.length} characters cut here ` +
        `(lines 14-88 of 100). The whole output is saved read-only; read the rest with read_file ` +
        `{"path":"${path}","offset":14,"limit":75}`,
    );
    expect(out.length).toBeLessThanOrEqual(400);
  });

  it('stays within the cap for one long line, and says the save failed when it did', () => {
    const out = cutLongOutput('y'.repeat(50_000), 2_000, { failure: 'EACCES: permission\n denied' });
    expect(out.length).toBeLessThanOrEqual(2_000);
    expect(out).toMatch(
      /^y+\n\[\.\.\. \d+ of 50000 characters cut here \(line 1 of 1\); the whole output could not be saved: EACCES: permission denied\]\ny+$/,
    );
  });

  it('never splits a surrogate pair', () => {
    const out = cutLongOutput('😀'.repeat(10_000), 2_001, { path });
    expect(out.length).toBeLessThanOrEqual(2_001);
    expect(out.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')).not.toMatch(/[\uD800-\uDFFF]/);
    expect(out.startsWith('😀') && out.endsWith('😀')).toBe(true);
  });
});

describe('saved output names', () => {
  it('are fixed by turn, step and call id; an id that is no safe file name is cleaned and hashed', () => {
    const names = ['call_1', 'toolu_01AbC-d', '../../etc/passwd', '../../etc_passwd', 'x'.repeat(80)].map(
      (callId) => savedOutputName({ turn: 3, step: 2, callId }),
    );
    expect(names.slice(0, 2)).toEqual(['3-2-call_1.txt', '3-2-toolu_01AbC-d.txt']);
    expect(names.slice(2).every((name) => /^3-2-[A-Za-z0-9_-]{1,48}\.[0-9a-f]+\.txt$/.test(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(savedOutputPath('s1', names[0]!)).toBe('/agentchart-outputs/s1/3-2-call_1.txt');
  });
});

describe('pageBytes', () => {
  it('keeps a paging tool under the runtime cap, with room for its notes', () => {
    expect([pageBytes(100_000, undefined), pageBytes(100_000, 30_000), pageBytes(20_000, 30_000)]).toEqual([
      100_000, 29_000, 20_000,
    ]);
  });
});

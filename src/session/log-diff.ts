// The fields in which two log events differ, for a divergence report a person can act on: not two 4 KB
// lines, but `data.content: "…old…" → "…new…"` and `data.config.tools: + task`.
import type { DivergenceChange } from '../errors/replay-divergence-error.ts';

/** Values longer than this are shortened around their first difference. */
const maxValueLength = 80;
/** How much of a shortened value is kept before its first difference. */
const leadLength = 24;

/**
 * The changes from `recorded` to `replayed` (two events, as parsed from their written lines), in the
 * order of the recorded event's keys. A list whose entries all have distinct `name`s (tools, tool
 * specs) or are distinct strings (`toolNames`) is compared by name: entries `added` and `removed`, then
 * each common entry field by field under `path[name]`, then their order when only that differs.
 */
export function diffEvents(recorded: unknown, replayed: unknown): DivergenceChange[] {
  const changes: DivergenceChange[] = [];
  walk('', recorded, replayed, changes);
  return changes;
}

function walk(path: string, recorded: unknown, replayed: unknown, out: DivergenceChange[]): void {
  if (sameJson(recorded, replayed)) return;
  if (isPlainObject(recorded) && isPlainObject(replayed)) {
    const keys = [...Object.keys(recorded), ...Object.keys(replayed).filter((key) => !(key in recorded))];
    for (const key of keys) {
      const at = path === '' ? key : `${path}.${key}`;
      if (!(key in replayed)) out.push({ path: at, change: 'removed', recorded: show(recorded[key]) });
      else if (!(key in recorded)) out.push({ path: at, change: 'added', replayed: show(replayed[key]) });
      else walk(at, recorded[key], replayed[key], out);
    }
    return;
  }
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    if (namesOf(recorded) && namesOf(replayed)) {
      walkNamed(path, recorded, replayed, out);
      return;
    }
    const length = Math.max(recorded.length, replayed.length);
    for (let index = 0; index < length; index++) {
      const at = `${path}[${index}]`;
      if (index >= replayed.length)
        out.push({ path: at, change: 'removed', recorded: show(recorded[index]) });
      else if (index >= recorded.length)
        out.push({ path: at, change: 'added', replayed: show(replayed[index]) });
      else walk(at, recorded[index], replayed[index], out);
    }
    return;
  }
  out.push({ path: path || '(the event)', change: 'changed', ...shownPair(recorded, replayed) });
}

/** A list of named entries: which names came and went, then what changed in the ones both have. */
function walkNamed(path: string, recorded: unknown[], replayed: unknown[], out: DivergenceChange[]): void {
  const before = namesOf(recorded)!;
  const after = namesOf(replayed)!;
  const at = path || '(the event)';
  for (const name of before)
    if (!after.includes(name)) out.push({ path: at, change: 'removed', recorded: name });
  for (const name of after)
    if (!before.includes(name)) out.push({ path: at, change: 'added', replayed: name });
  const length = out.length;
  for (const [index, name] of before.entries()) {
    const other = after.indexOf(name);
    if (other >= 0) walk(`${path}[${name}]`, recorded[index], replayed[other], out);
  }
  const common = (names: string[], others: string[]) => names.filter((name) => others.includes(name));
  const order = [common(before, after), common(after, before)];
  if (out.length === length && order[0]!.join('\n') !== order[1]!.join('\n'))
    out.push({
      path: `${at} (order)`,
      change: 'changed',
      recorded: order[0]!.join(', '),
      replayed: order[1]!.join(', '),
    });
}

/** The names of a list's entries when every entry has one and none repeats; undefined otherwise. */
function namesOf(list: unknown[]): string[] | undefined {
  if (list.length === 0) return [];
  const names = list.map((entry) =>
    typeof entry === 'string'
      ? entry
      : isPlainObject(entry) && typeof entry.name === 'string'
        ? entry.name
        : undefined,
  );
  if (names.some((name) => name === undefined)) return undefined;
  return new Set(names).size === names.length ? (names as string[]) : undefined;
}

/** Both values as JSON, shortened alike around the first place their texts differ. */
function shownPair(recorded: unknown, replayed: unknown): { recorded: string; replayed: string } {
  if (typeof recorded === 'string' && typeof replayed === 'string') {
    const start = cutStart(recorded, replayed);
    return { recorded: quoted(recorded, start), replayed: quoted(replayed, start) };
  }
  const [left, right] = [JSON.stringify(recorded) ?? 'undefined', JSON.stringify(replayed) ?? 'undefined'];
  const start = cutStart(left, right);
  return { recorded: cut(left, start), replayed: cut(right, start) };
}

function show(value: unknown): string {
  return typeof value === 'string' ? quoted(value, 0) : cut(JSON.stringify(value) ?? 'undefined', 0);
}

/** Where to start showing two texts so their first difference is in view. */
function cutStart(left: string, right: string): number {
  if (left.length <= maxValueLength && right.length <= maxValueLength) return 0;
  let same = 0;
  while (same < left.length && same < right.length && left[same] === right[same]) same++;
  return Math.max(0, same - leadLength);
}

/** A string shown as JSON from `start`, `…` inside the quotes where it was cut. */
function quoted(text: string, start: number): string {
  const shown = text.slice(start, start + maxValueLength);
  const inner = JSON.stringify(shown).slice(1, -1);
  return `"${start > 0 ? '…' : ''}${inner}${start + maxValueLength < text.length ? '…' : ''}"`;
}

function cut(text: string, start: number): string {
  const shown = text.slice(start, start + maxValueLength);
  return `${start > 0 ? '…' : ''}${shown}${start + maxValueLength < text.length ? '…' : ''}`;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// What every origin's replay test does once it has a recording: the log copied to another temporary folder,
// checked from a third working directory with the built CLI (`npm run -s build` first) and `expectReplay`,
// with recorded tools and — where tools ran — with live tools in a restored workspace; then a tampered copy
// must fail naming the seq and the field. One kit, so each origin's test only says how it records.
import { copyFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ReplayDivergenceError } from '../../src/index.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { expectReplay, type ReplayOptions } from '../../src/testing.ts';
import { runBuiltCliProcess } from '../support/child-run.ts';
import { checkPassed, expectCheckPasses } from '../support/replay-check.ts';
import { useTempFolders } from '../support/temp-folders.ts';

export { sessionLogOf } from '../support/cli-world.ts';

/** A temporary folder removed after the test (the clean-up is registered in the file that imports the kit). */
export const tempFolder = useTempFolders('agentchart-origin');

/** The events of `type` in a log (with their seq), to assert what an origin recorded. */
export const eventsOf = (log: readonly LogEvent[], type: string) =>
  log.filter((event) => event.type === type);

/**
 * A field the runtime derives (not the model, not a tool): changed in a copy, the replay must diverge at
 * that event and name the field. `select` picks the event (default: the last of `type`).
 */
export type Tamper = {
  type: string;
  select?: (event: LogEvent) => boolean;
  /** The path under `data`, e.g. `['usage', 'input']`. */
  path: string[];
  value: unknown;
};

export type OriginCheck = {
  /** The recorded session log, where the origin wrote it. */
  log: string;
  /** A fresh copy of the workspace as it was when the session started; absent when no tool ran. */
  restore?: () => Promise<string>;
  tamper: Tamper;
  /** The environment of the replaying commands (default: an empty HOME, another machine). */
  env?: Record<string, string>;
  /** Options `expectReplay` needs beside the recording (e.g. skills looked up by name). */
  replayOptions?: ReplayOptions;
};

/**
 * Runs the whole check for one origin's recording. The recorded workspace may be removed before this is
 * called: recorded tools need nothing but the log.
 */
export async function checkEverywhere(check: OriginCheck): Promise<LogEvent[]> {
  const copy = join(await tempFolder('copy'), 'session.jsonl');
  await copyFile(check.log, copy);
  const events = await readLog(copy);
  const elsewhere = await tempFolder('elsewhere');
  const env = check.env ?? { HOME: await tempFolder('home'), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
  const cli = (args: string[]) => runBuiltCliProcess(args, { env, cwd: elsewhere, timeoutMs: 90_000 });
  const where = { env, cwd: elsewhere, timeoutMs: 90_000 };
  const clean = checkPassed(copy, events.length);

  await expectCheckPasses(copy, clean, where);
  await expectReplay(copy, check.replayOptions);
  if (check.restore) {
    const restored = await check.restore();
    await expectCheckPasses(copy, clean, { ...where, args: ['--tools', 'live', '--workspace', restored] });
    await expectReplay(copy, { ...check.replayOptions, tools: 'live', workspace: await check.restore() });
  }
  await expectTamperedFails(copy, events, check, cli);
  return events;
}

async function expectTamperedFails(
  copy: string,
  events: readonly LogEvent[],
  check: OriginCheck,
  cli: (args: string[]) => ReturnType<typeof runBuiltCliProcess>,
): Promise<void> {
  const { type, select, path, value } = check.tamper;
  const target = events.findLast((event) => event.type === type && (select?.(event) ?? true));
  expect(target, `no ${type} event to tamper with`).toBeDefined();
  const changed = structuredClone(target!) as { data: Record<string, unknown> };
  let holder = changed.data;
  for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
  expect(holder[path.at(-1)!], `data.${path.join('.')} of ${type}`).not.toEqual(value);
  holder[path.at(-1)!] = value;
  const lines = events.map((event) => JSON.stringify(event === target ? changed : event));
  const tampered = join(dirname(copy), 'tampered.jsonl');
  await writeFile(tampered, `${lines.join('\n')}\n`);
  const field = `data.${path.join('.')}`;

  const run = await cli(['replay', tampered, '--check', '--json']);
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout) as { divergence: ReturnType<ReplayDivergenceError['toJSON']> };
  expect({
    seq: report.divergence.seq,
    recordedType: report.divergence.recordedType,
    fields: report.divergence.changes.map((entry) => entry.path),
  }).toEqual({ seq: target!.seq, recordedType: type, fields: [field] });
  const error = await expectReplay(tampered, check.replayOptions).catch((caught: unknown) => caught);
  expect(ReplayDivergenceError.isInstance(error)).toBe(true);
  expect((error as ReplayDivergenceError).toJSON()).toEqual(report.divergence);
}

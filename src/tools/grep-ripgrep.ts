import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { commandEnvironment, environmentFilter } from './command-environment.ts';
import type { GrepHit, GrepOutcome, GrepQuery } from './grep-search.ts';

const withheldByDefault = environmentFilter();

let ripgrepLookup: Promise<string | undefined> | undefined;

/** The path of the `rg` executable on PATH, or undefined. Looked up once per process. */
export function findRipgrep(): Promise<string | undefined> {
  ripgrepLookup ??= lookUpOnPath('rg');
  return ripgrepLookup;
}

async function lookUpOnPath(command: string): Promise<string | undefined> {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

// Missing or not executable are the same answer here: look in the next folder of PATH.
function isExecutable(candidate: string): Promise<boolean> {
  return access(candidate, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Ripgrep could not compile the pattern (its regex dialect differs); the JavaScript search may. */
export const unsupportedPattern = Symbol('unsupportedPattern');

/**
 * Runs ripgrep with `--json` and `--sort path`, so the hits come in the same order as the JavaScript
 * search. Stops ripgrep as soon as one hit more than `maxHits` has arrived. Rejects only on abort.
 */
export function searchWithRipgrep(
  rg: string,
  query: GrepQuery,
): Promise<GrepOutcome | typeof unsupportedPattern> {
  // No config file and never --pcre2: ripgrep's own engine matches in linear time, as the fallback's does.
  const args = ['--json', '--no-config', '--hidden', '--no-require-git', '--sort', 'path'];
  args.push('--context', String(query.context));
  if (query.glob !== undefined) args.push('--glob', query.glob);
  args.push('--glob', '!.git', '--glob', '!node_modules', '--regexp', query.pattern, '--');
  if (query.targetRelative !== '.') args.push(query.targetRelative);
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, {
      cwd: query.rootReal,
      signal: query.signal,
      stdio: ['ignore', 'pipe', 'pipe'],
      // ripgrep needs no credentials; like bash by default, it does not get them.
      env: commandEnvironment(process.env, withheldByDefault),
    });
    const hits: GrepHit[] = [];
    let pending = '';
    let stderr = '';
    let full = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (full) return;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const hit = parseLine(line);
        if (hit !== undefined) hits.push(hit);
        if (hits.length > query.maxHits) {
          full = true;
          child.kill();
          break;
        }
      }
    });
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error) => reject(query.signal.aborted ? query.signal.reason : error));
    child.on('close', (code) => {
      if (query.signal.aborted) return reject(query.signal.reason);
      if (!full && pending !== '') {
        const hit = parseLine(pending);
        if (hit !== undefined) hits.push(hit);
      }
      if (full || code === 0 || code === 1 || hits.length > 0) return resolve({ hits });
      if (stderr.includes('regex parse error')) return resolve(unsupportedPattern);
      resolve({ error: `ripgrep failed: ${stderr.trim() || `exit code ${code}`}` });
    });
  });
}

type RipgrepText = { text?: string; bytes?: string };

function decode(value: RipgrepText | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value.text === 'string') return value.text;
  if (typeof value.bytes === 'string') return Buffer.from(value.bytes, 'base64').toString('utf8');
  return undefined;
}

/** One `match` or `context` message of `rg --json`; other messages (begin, end, summary) give nothing. */
function parseLine(line: string): GrepHit | undefined {
  if (!line.startsWith('{')) return undefined;
  let message: { type?: string; data?: { path?: RipgrepText; lines?: RipgrepText; line_number?: number } };
  try {
    message = JSON.parse(line);
  } catch (error) {
    // A torn or foreign line cannot be a hit; ripgrep's exit code still reports real failures.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  if (message.type !== 'match' && message.type !== 'context') return undefined;
  const file = decode(message.data?.path);
  const text = decode(message.data?.lines);
  const lineNumber = message.data?.line_number;
  if (file === undefined || text === undefined || typeof lineNumber !== 'number') return undefined;
  return {
    path: file.startsWith('./') ? file.slice(2) : file,
    line: lineNumber,
    text: text.replace(/\r?\n$/, ''),
    match: message.type === 'match',
  };
}

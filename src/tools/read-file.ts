import type { FileHandle } from 'node:fs/promises';
import { realpath } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { addAbortSignal, Readable } from 'node:stream';
import { z } from 'zod/v4';
import { must, positiveInteger } from '../core/host-schema.ts';
import { openRegularFile } from '../core/regular-file.ts';
import { defineTool } from './define-tool.ts';
import { describeImage } from './image-info.ts';
import { byteLength, looksBinary, pageBytes, truncateLine } from './output-cap.ts';
import { resolveSavedOutput } from './saved-output.ts';
import { resolveSkillPath } from './skill-files.ts';
import { replacementCharacter, Utf8Decoder } from './text-encoding.ts';
import { failure, guardFileErrors } from './tool-failure.ts';
import { parseToolOptions } from './tool-options.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

export type ReadFileOptions = {
  /**
   * Most bytes of numbered text returned by one call (default 100 000); inside an agent system never more
   * than its `toolOutput.maxChars` allows, so a page is never cut again.
   */
  maxBytes?: number;
  /** Lines returned when the model gives no `limit` (default 2000). */
  defaultLimit?: number;
};

const optionsSchema = z.strictObject(
  { maxBytes: positiveInteger.optional(), defaultLimit: positiveInteger.optional() },
  must('an object'),
);

const maxLineChars = 2000;
const sniffBytes = 8192;

const input = z.object({
  path: z.string().describe('File to read, relative to the workspace root.'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('1-based line number to start at (default 1). Use it to continue a long file.'),
  limit: z.number().int().min(1).optional().describe('How many lines to return (default 2000).'),
});

/**
 * `read_file`: a text file as numbered lines (`cat -n` style), a window of it with `offset`/`limit`.
 * Binary files are refused and images are described, never dumped; FIFOs, sockets and devices are refused
 * without waiting on them. Besides the workspace it reads the tool outputs the runtime saved
 * (`/agentchart-outputs/<session>/<file>`), and nothing else outside. Bytes that are not UTF-8 show as U+FFFD, and a note says so.
 *
 * @throws ConfigError when an option is invalid.
 */
export function readFileTool(options: ReadFileOptions = {}) {
  const parsed = parseToolOptions(optionsSchema, options, 'readFile');
  const maxBytes = parsed.maxBytes ?? 100_000;
  const defaultLimit = parsed.defaultLimit ?? 2000;
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file from the workspace. Returns numbered lines ("   12\\tcode"); the numbers are not part ' +
      `of the file. Reads up to ${defaultLimit} lines from the start unless you pass offset (1-based first ` +
      'line) and limit (line count); when more remains, the result ends with the offset to continue from. ' +
      'Also reads a long tool result saved under /agentchart-outputs/, by the path its result gave. ' +
      'Images are described by type and size; other binary files are refused.',
    input,
    access: 'read',
    concurrencySafe: true,
    run: (args, ctx) =>
      guardFileErrors(args.path, async () => {
        // A saved tool output or a skill's file is read by the path its result gave (the description is kept
        // as it was, so logs recorded before skills replay); everything else is in the workspace.
        const saved =
          (await resolveSavedOutput(ctx.savedOutputs, args.path)) ??
          (await resolveSkillPath(ctx.skillFolders, args.path))?.real;
        const file = saved ?? (await resolveInWorkspace(ctx.cwd, args.path, { mustExist: true }));
        const shown = saved !== undefined ? args.path : toWorkspacePath(await realpath(ctx.cwd), file);
        const opened = await openRegularFile(file, 'read');
        if (!('handle' in opened)) {
          return opened.isDirectory
            ? failure(`${shown} is a folder; use list_dir to see what it holds.`)
            : failure(`${shown} is ${opened.kind}, not a regular file; read_file reads regular files only.`);
        }
        const { handle } = opened;
        try {
          const size = (await handle.stat()).size;
          const sample = await readSample(handle);
          const image = describeImage(shown, sample, size);
          if (image !== undefined) return image;
          if (looksBinary(sample)) {
            return failure(`${shown} is a binary file (${size} bytes); read_file shows text files only.`);
          }
          if (size === 0) return `(${shown} is empty)`;
          const first = Math.max(1, args.offset ?? 1);
          return await readWindow({
            handle,
            shown,
            first,
            limit: args.limit ?? defaultLimit,
            maxBytes: pageBytes(maxBytes, ctx.maxOutputChars),
            signal: ctx.signal,
          });
        } finally {
          await handle.close();
        }
      }),
  });
}

async function readSample(handle: FileHandle): Promise<Buffer> {
  const buffer = Buffer.alloc(sniffBytes);
  const { bytesRead } = await handle.read(buffer, 0, sniffBytes, 0);
  return buffer.subarray(0, bytesRead);
}

type Window = {
  handle: FileHandle;
  shown: string;
  first: number;
  limit: number;
  maxBytes: number;
  signal: AbortSignal;
};

// Streams the file so a huge log costs memory only for the lines shown.
async function readWindow(window: Window) {
  const { handle, shown, first, limit, maxBytes, signal } = window;
  // A stream given a signal that already fired errors at once, before anything listens to it, and that
  // error would escape to the process: a call cancelled while the file was being opened stops here.
  signal.throwIfAborted();
  const stream = addAbortSignal(signal, handle.createReadStream({ start: 0, autoClose: false }));
  const decoder = new Utf8Decoder();
  const lines = createInterface({
    input: Readable.from(decodeChunks(stream, decoder)),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  const out: string[] = [];
  let total = 0;
  let bytes = 0;
  let cappedAt: number | undefined;
  try {
    for await (const line of lines) {
      total++;
      if (total < first || out.length >= limit || cappedAt !== undefined) continue;
      const numbered = `${String(total).padStart(6)}\t${truncateLine(line, maxLineChars)}`;
      if (out.length > 0 && bytes + byteLength(numbered) + 1 > maxBytes) {
        cappedAt = total - 1;
        continue;
      }
      out.push(numbered);
      bytes += byteLength(numbered) + 1;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (out.length === 0) {
    return failure(`${shown} has ${total} lines; offset ${first} is past the end.`);
  }
  const last = first + out.length - 1;
  if (cappedAt !== undefined) {
    out.push(
      `\n[Output capped at ${maxBytes} bytes: showing lines ${first}-${last} of ${total}. ` +
        `To read further, call read_file with offset ${last + 1}.]`,
    );
  } else if (last < total) {
    out.push(
      `\n[Showing lines ${first}-${last} of ${total}. To read further, call read_file with offset ${last + 1}.]`,
    );
  }
  // Under the window's note when there is one, else after a blank line like that note.
  if (!decoder.isValid)
    out.push(`${cappedAt !== undefined || last < total ? '' : '\n'}${notUtf8Note(shown)}`);
  return out.join('\n');
}

async function* decodeChunks(stream: AsyncIterable<Buffer>, decoder: Utf8Decoder): AsyncGenerator<string> {
  for await (const chunk of stream) yield decoder.decode(chunk);
  const rest = decoder.end();
  if (rest !== '') yield rest;
}

/** Said after the lines of a file that is not all UTF-8, so the model knows what U+FFFD stands for. */
function notUtf8Note(shown: string): string {
  return (
    `[${shown} is not valid UTF-8: bytes that are not UTF-8 are shown as ${replacementCharacter}. ` +
    'edit_file keeps them as they are, but old_string cannot match them.]'
  );
}

import { createReadStream } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { describeImage } from './image-info.ts';
import { byteLength, looksBinary, truncateLine } from './output-cap.ts';
import { failure, guardFileErrors } from './tool-failure.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

export type ReadFileOptions = {
  /** Most bytes of numbered text returned by one call (default 100 000). */
  maxBytes?: number;
  /** Lines returned when the model gives no `limit` (default 2000). */
  defaultLimit?: number;
};

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
 * Binary files are refused and images are described, never dumped.
 */
export function readFileTool(options: ReadFileOptions = {}) {
  const maxBytes = options.maxBytes ?? 100_000;
  const defaultLimit = options.defaultLimit ?? 2000;
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file from the workspace. Returns numbered lines ("   12\\tcode"); the numbers are not part ' +
      `of the file. Reads up to ${defaultLimit} lines from the start unless you pass offset (1-based first ` +
      'line) and limit (line count); when more remains, the result ends with the offset to continue from. ' +
      'Images are described by type and size; other binary files are refused.',
    input,
    access: 'read',
    concurrencySafe: true,
    run: (args, ctx) =>
      guardFileErrors(args.path, async () => {
        const file = await resolveInWorkspace(ctx.cwd, args.path, { mustExist: true });
        const shown = toWorkspacePath(await realpath(ctx.cwd), file);
        const info = await stat(file);
        if (info.isDirectory()) return failure(`${shown} is a folder; use list_dir to see what it holds.`);
        const sample = await readSample(file);
        const image = describeImage(shown, sample, info.size);
        if (image !== undefined) return image;
        if (looksBinary(sample)) {
          return failure(`${shown} is a binary file (${info.size} bytes); read_file shows text files only.`);
        }
        if (info.size === 0) return `(${shown} is empty)`;
        const first = Math.max(1, args.offset ?? 1);
        return readWindow({
          file,
          shown,
          first,
          limit: args.limit ?? defaultLimit,
          maxBytes,
          signal: ctx.signal,
        });
      }),
  });
}

async function readSample(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(sniffBytes);
    const { bytesRead } = await handle.read(buffer, 0, sniffBytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

type Window = {
  file: string;
  shown: string;
  first: number;
  limit: number;
  maxBytes: number;
  signal: AbortSignal;
};

// Streams the file so a huge log costs memory only for the lines shown.
async function readWindow(window: Window) {
  const { file, shown, first, limit, maxBytes, signal } = window;
  const stream = createReadStream(file, { encoding: 'utf8', signal });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
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
  return out.join('\n');
}

// What a test of the CLI needs around the command it runs: a local OpenAI Chat wire server the CLI's model
// talks to, a fresh workspace (and HOME) removed afterwards, and the environment that points the CLI at the
// server and keeps it off the real home and the real keys. One set-up, so a test file only says what
// differs (where HOME is, whether sessions go under it, once per file or once per test).
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RecordedRequest } from './wire/fake-server.ts';
import { type OpenAIChatServer, startOpenAIChatServer } from './wire/openai-chat-server.ts';
import type { WireReply } from './wire/reply.ts';

export type CliWorld = {
  server: OpenAIChatServer;
  workspace: string;
  /** HOME of the CLI ('' with `home: 'unset'`). */
  home: string;
  /** The CLI's environment: no Anthropic key, the OpenAI adapter pointed at `server`, HOME and state as chosen. */
  env: Record<string, string>;
};

export type CliWorldOptions = {
  /** Starts the temporary folders' names, e.g. `agentchart-run`. */
  prefix: string;
  /** HOME: a fresh folder of its own (default), the workspace itself, or not set (the harness's or the runner's). */
  home?: 'own' | 'workspace' | 'unset';
  /** XDG_STATE_HOME, where sessions go: not set (default), `<home>/state`, or HOME itself. */
  state?: 'unset' | 'in-home' | 'home';
  /** Once for the whole file (`beforeAll`) instead of fresh for each test. */
  perFile?: boolean;
  /** Answers the requests no queued reply is left for, from their bodies (many agents on one server). */
  respond?: (request: RecordedRequest) => WireReply | undefined;
  /** The workspace through `realpath`, for tests that compare paths the CLI resolved. */
  realWorkspace?: boolean;
};

/** The environment that points the CLI's OpenAI adapter at a local wire server, with no Anthropic key. */
export const modelEnv = (server: OpenAIChatServer): Record<string, string> => ({
  ANTHROPIC_API_KEY: '',
  OPENAI_API_KEY: 'test-key',
  OPENAI_BASE_URL: `${server.url}/v1`,
});

/**
 * Registers the set-up and clean-up in the calling `describe` (or file). The returned object holds the
 * current test's world; `ready` is called with it once it is set up, before the test's own `beforeEach`.
 */
export function useCliWorld(options: CliWorldOptions, ready?: (world: CliWorld) => void): CliWorld {
  const world = {} as CliWorld;
  const folders: string[] = [];
  const folder = async (name: string) => {
    const made = await mkdtemp(join(tmpdir(), `${options.prefix}${name}-`));
    folders.push(made);
    return options.realWorkspace ? realpath(made) : made;
  };
  const setUp = async () => {
    world.server = await startOpenAIChatServer(options.respond);
    world.workspace = await folder('');
    const home = options.home ?? 'own';
    world.home = home === 'own' ? await folder('-home') : home === 'workspace' ? world.workspace : '';
    world.env = { ...modelEnv(world.server), ...(world.home === '' ? {} : { HOME: world.home }) };
    if (options.state === 'in-home') world.env.XDG_STATE_HOME = join(world.home, 'state');
    if (options.state === 'home') world.env.XDG_STATE_HOME = world.home;
    ready?.(world);
  };
  const tearDown = async () => {
    await world.server.close();
    for (const made of folders.splice(0)) await rm(made, { recursive: true, force: true });
  };
  if (options.perFile) {
    beforeAll(setUp);
    afterAll(tearDown);
  } else {
    beforeEach(setUp);
    afterEach(tearDown);
  }
  return world;
}

/** The session log a `run` or `resume` named on its output, or a failure that shows the output. */
export function sessionLogOf(output: string): string {
  const file = /^Session log: (.+\.jsonl)$/m.exec(output)?.[1];
  if (file === undefined) throw new Error(`no "Session log:" line in:\n${output}`);
  return file;
}

/** A tool call as the wire server streams it: the input as one argument piece. */
export const wireToolCall = (id: string, name: string, input: unknown) => ({
  id,
  name,
  argumentPieces: [JSON.stringify(input)],
});

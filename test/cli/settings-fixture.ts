// What the CLI's settings tests share: a local OpenAI Chat wire server the CLI's model talks to, a fresh
// workspace and HOME for each test (removed after it), and the settings files inside them.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type OpenAIChatServer, startOpenAIChatServer } from '../support/wire/openai-chat-server.ts';

export type SettingsCli = {
  server: OpenAIChatServer;
  workspace: string;
  home: string;
  /** The CLI's environment: HOME, and the OpenAI adapter pointed at the wire server. */
  env: Record<string, string>;
};

/** Registers the per-test set-up in the calling `describe`; the returned object holds the current test's. */
export function useSettingsCli(prefix: string): SettingsCli {
  const current = {} as SettingsCli;
  beforeEach(async () => {
    current.server = await startOpenAIChatServer();
    current.workspace = await mkdtemp(join(tmpdir(), `${prefix}-`));
    current.home = await mkdtemp(join(tmpdir(), `${prefix}-home-`));
    current.env = {
      HOME: current.home,
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: `${current.server.url}/v1`,
    };
  });
  afterEach(async () => {
    await current.server.close();
    await rm(current.workspace, { recursive: true, force: true });
    await rm(current.home, { recursive: true, force: true });
  });
  return current;
}

/** `<root>/.agentchart/settings.json`: the workspace's file, or the user's when `root` is HOME. */
export const settingsFileIn = (root: string) => join(root, '.agentchart', 'settings.json');

export async function writeSettings(root: string, value: unknown): Promise<void> {
  await mkdir(join(root, '.agentchart'), { recursive: true });
  await writeFile(settingsFileIn(root), JSON.stringify(value));
}

/** A tool call as the wire server streams it. */
export const toolCall = (id: string, name: string, input: unknown) => ({
  id,
  name,
  argumentPieces: [JSON.stringify(input)],
});

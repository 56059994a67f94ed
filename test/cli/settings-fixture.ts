// What the CLI's settings tests share: the CLI world (a local OpenAI Chat wire server, a fresh workspace
// and HOME for each test, removed after it) and the settings files inside them.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CliWorld, useCliWorld } from '../support/cli-world.ts';

export type SettingsCli = CliWorld;

/** Registers the per-test set-up in the calling `describe`; `ready` receives the current test's world. */
export function useSettingsCli(prefix: string, ready?: (world: SettingsCli) => void): SettingsCli {
  return useCliWorld({ prefix }, ready);
}

/** `<root>/.agentchart/settings.json`: the workspace's file, or the user's when `root` is HOME. */
export const settingsFileIn = (root: string) => join(root, '.agentchart', 'settings.json');

/** The lines `agentchart config` opens with: the settings files of `world`, in the order they apply. */
export const settingsFilesLines = ({ workspace, home }: { workspace: string; home: string }) => [
  `Settings files for ${workspace} (later files win):`,
  `  user      ${settingsFileIn(home)}`,
  `  workspace ${settingsFileIn(workspace)}`,
  '',
];

export async function writeSettings(root: string, value: unknown): Promise<void> {
  await mkdir(join(root, '.agentchart'), { recursive: true });
  await writeFile(settingsFileIn(root), JSON.stringify(value));
}

export { wireToolCall as toolCall } from '../support/cli-world.ts';

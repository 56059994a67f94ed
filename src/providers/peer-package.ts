// The model SDKs are optional peer dependencies: a program that never imports `agentchart/anthropic` or
// `agentchart/openai` does not need them installed. Those subpaths load their SDK here, at import, so a
// missing SDK is one clear error naming the install command instead of Node's bare "Cannot find package".
import { ConfigError } from '../errors/config-error.ts';

/** The peer packages the provider subpaths load, with the versions agentchart supports. */
export const peerPackages = {
  '@anthropic-ai/sdk': { subpath: 'agentchart/anthropic', range: '^1.14.0' },
  openai: { subpath: 'agentchart/openai', range: '^6.49.0 || ^7.0.0' },
} as const;

export type PeerPackage = keyof typeof peerPackages;

/**
 * Imports a peer package. A package that is not installed is a `ConfigError` saying what to install; any
 * other failure (a broken install) is rethrown as it is.
 */
export async function loadPeerPackage<Module>(
  name: PeerPackage,
  load: () => Promise<Module>,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    const { subpath, range } = peerPackages[name];
    throw new ConfigError(
      `${subpath} needs the package ${name}, which is not installed; install it with: npm install ${name}@"${range}"`,
      { cause: error },
    );
  }
}

function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}

// The model SDKs, and the Redis and PostgreSQL clients, are optional peer dependencies: a program that
// never imports `agentchart/anthropic`, `agentchart/openai`, `agentchart/bullmq` or `agentchart/postgres`
// does not need them installed. Those subpaths load their packages here, at import, so a missing package is
// one clear error naming the install command instead of Node's bare "Cannot find package".
import { ConfigError } from '../errors/config-error.ts';

/** The peer packages the subpaths load, with the versions agentchart supports. */
export const peerPackages = {
  '@anthropic-ai/sdk': { subpath: 'agentchart/anthropic', range: '^1.14.0' },
  openai: { subpath: 'agentchart/openai', range: '^6.49.0 || ^7.0.0' },
  bullmq: { subpath: 'agentchart/bullmq', range: '^6.7.0' },
  ioredis: { subpath: 'agentchart/bullmq', range: '^6.0.0' },
  pg: { subpath: 'agentchart/postgres', range: '^8.23.1' },
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
  const { [name]: loaded } = await loadPeerPackages({ [name]: load } as Record<
    PeerPackage,
    () => Promise<Module>
  >);
  return loaded;
}

/**
 * Imports the peer packages one subpath needs, side by side. Every one that is missing is named in one
 * `ConfigError` with one install command (`agentchart/bullmq needs the packages bullmq and ioredis, which
 * are not installed; install them with: npm install bullmq@"^6.7.0" ioredis@"^6.0.0"`). A package whose own
 * import fails on another of them (bullmq without ioredis) counts that one as missing. Any other failure is
 * rethrown as it is.
 */
export async function loadPeerPackages<Loads extends Partial<Record<PeerPackage, () => Promise<unknown>>>>(
  loads: Loads,
): Promise<{ [Name in keyof Loads]: Loads[Name] extends () => Promise<infer Module> ? Module : never }> {
  const names = Object.keys(loads) as PeerPackage[];
  const settled = await Promise.allSettled(names.map((name) => loads[name]!()));
  const missing = new Set<PeerPackage>();
  for (const result of settled) {
    if (result.status === 'fulfilled') continue;
    const named = names.filter((name) => isMissingPackage(result.reason, name));
    if (named.length === 0) throw result.reason;
    for (const name of named) missing.add(name);
  }
  if (missing.size > 0) throw missingPackages([...missing], settled);
  const modules = settled.map((result) => (result as PromiseFulfilledResult<unknown>).value);
  return Object.fromEntries(names.map((name, index) => [name, modules[index]])) as never;
}

function missingPackages(names: PeerPackage[], settled: PromiseSettledResult<unknown>[]): ConfigError {
  const { subpath } = peerPackages[names[0]!];
  const cause = settled.find((result) => result.status === 'rejected')?.reason;
  const install = names.map((name) => `${name}@"${peerPackages[name].range}"`).join(' ');
  const [what, them] =
    names.length === 1
      ? [`the package ${names[0]}, which is`, 'it']
      : [`the packages ${names.slice(0, -1).join(', ')} and ${names.at(-1)}, which are`, 'them'];
  return new ConfigError(
    `${subpath} needs ${what} not installed; install ${them} with: npm install ${install}`,
    { cause },
  );
}

function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}

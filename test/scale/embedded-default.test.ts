// The embedded default needs no server: nothing the main entry point, agentchart/testing or the provider
// subpaths load reaches the PostgreSQL store or the BullMQ jobs, and only those two folders import pg,
// bullmq or ioredis. The CLI loads them only inside the commands that take --redis/--postgres. The optional
// @opentelemetry/api is loaded lazily, by one file, so an install without it runs untraced.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../scripts/check-imports.ts';
import { repoRoot } from '../support/child-run.ts';

const src = join(repoRoot, 'src');

function reachable(graph: Map<string, string[]>, entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [join(src, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...(graph.get(file) ?? []));
  }
  return seen;
}

describe('the embedded default', () => {
  it('loads neither the PostgreSQL store nor the BullMQ jobs from the main and provider entry points', () => {
    const graph = importGraph();
    const entries = [
      'index.ts',
      'testing.ts',
      'providers/anthropic.ts',
      'providers/openai.ts',
      'providers/ai-sdk.ts',
    ];
    const loaded = entries.flatMap((entry) =>
      [...reachable(graph, entry)].map((file) => relative(src, file)),
    );
    expect(loaded.filter((file) => /^(postgres|bullmq)[/.]/.test(file))).toEqual([]);
  });

  it('imports pg, bullmq and ioredis only in src/postgres and src/bullmq', () => {
    const users = [...importGraph().keys()].filter((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.some((imported) => ['pg', 'bullmq', 'ioredis'].includes(imported.fileName)),
    );
    expect(users.map((file) => relative(src, file)).sort()).toEqual([
      'bullmq/enqueue-job.ts',
      'bullmq/follow-job.ts',
      'bullmq/peers.ts',
      'bullmq/redis-client.ts',
      'bullmq/start-worker.ts',
      'bullmq/task-dependencies.ts',
      'bullmq/task-outcome.ts',
      'postgres/peers.ts',
      'postgres/pg-lock.ts',
      'postgres/pg-schema.ts',
      'postgres/pg-store.ts',
    ]);
  });

  it('names the optional @opentelemetry/api only in src/telemetry, and loads it in one file', () => {
    const files = [...importGraph().keys()];
    const imports = (file: string) => ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    const users = files.filter((file) =>
      imports(file).some((imported) => imported.fileName === '@opentelemetry/api'),
    );
    expect(users.map((file) => relative(src, file)).sort()).toEqual([
      'telemetry/agent-spans.ts',
      'telemetry/open-telemetry.ts',
      'telemetry/system-tracing.ts',
      'telemetry/trace-parent.ts',
    ]);
    // The others import its types only: what they run comes from the one lazy `import()`.
    const loaders = users.filter((file) =>
      /import\('@opentelemetry\/api'\)/.test(readFileSync(file, 'utf8')),
    );
    expect(loaders.map((file) => relative(src, file))).toEqual(['telemetry/open-telemetry.ts']);
    const valueImports = users.filter((file) =>
      /^import (?!type)[^;]*from '@opentelemetry\/api'/m.test(readFileSync(file, 'utf8')),
    );
    expect(valueImports).toEqual([]);
  });
});

// The charts are pure (docs/architecture.md): that is a rule the tools enforce, not a sentence. Biome's
// `noRestrictedGlobals` denies the clock, timers, `process` and friends in src/machines/** (biome.json),
// a check here denies `Math.random` (Biome cannot name a member), and XState's own machine building
// resolves every chart: each target, initial state and referenced implementation.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { agentMachine } from '../../src/machines/agent.ts';
import { stepMachine } from '../../src/machines/step.ts';
import { toolBatchMachine } from '../../src/machines/tool-batch.ts';
import { turnMachine } from '../../src/machines/turn.ts';

const charts: Record<string, AnyStateMachine> = {
  agent: agentMachine,
  turn: turnMachine,
  step: stepMachine,
  'tool-batch': toolBatchMachine,
};
const biome = join(process.cwd(), 'node_modules', '.bin', 'biome');

/** Biome's findings (`file:line:col rule` and the global it names) for the files under `root`. */
async function lint(root: string): Promise<string[]> {
  const run = await promisify(execFile)(
    biome,
    ['lint', '--vcs-enabled=false', '--only=style/noRestrictedGlobals', 'src'],
    {
      cwd: root,
    },
  ).catch((error: { stdout: string; stderr: string }) => error);
  const text = `${run.stdout}\n${run.stderr}`;
  return [
    ...text.matchAll(/^(\S+):\d+:\d+ lint\/style\/noRestrictedGlobals[\s\S]*?global variable (\w+)/gm),
  ].map(([, file, name]) => `${file} ${name}`);
}

describe('the charts are pure', () => {
  it('Biome fails a chart that reads the clock, a timer or the process, and only in src/machines', async () => {
    const root = await mkdtemp(join(tmpdir(), 'agentchart-purity-'));
    try {
      await cp('biome.json', join(root, 'biome.json'));
      await mkdir(join(root, 'src', 'machines'), { recursive: true });
      await mkdir(join(root, 'src', 'runtime'), { recursive: true });
      const impure = 'export const stamp = () => Date.now();\n';
      for (const name of Object.keys(charts)) {
        const text = await readFile(join('src', 'machines', `${name}.ts`), 'utf8');
        await writeFile(join(root, 'src', 'machines', `${name}.ts`), text + impure);
      }
      await writeFile(
        join(root, 'src', 'machines', 'probe.ts'),
        [
          'export const a = () => setTimeout(() => undefined, 1);',
          'export const b = () => setInterval(() => undefined, 1);',
          'export const c = () => performance.now();',
          'export const d = () => process.env.HOME;',
          'export const e = () => globalThis.Date;',
          '',
        ].join('\n'),
      );
      // The same line outside the charts is allowed: the runtime owns the real clock.
      await writeFile(join(root, 'src', 'runtime', 'clock.ts'), impure);
      expect((await lint(root)).sort()).toEqual([
        'src/machines/agent.ts Date',
        'src/machines/probe.ts globalThis',
        'src/machines/probe.ts performance',
        'src/machines/probe.ts process',
        'src/machines/probe.ts setInterval',
        'src/machines/probe.ts setTimeout',
        'src/machines/step.ts Date',
        'src/machines/tool-batch.ts Date',
        'src/machines/turn.ts Date',
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('and the charts as they are pass it, with no Math.random either', async () => {
    const root = join('src', 'machines');
    const files = (await readdir(root)).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const random: string[] = [];
    for (const name of files) {
      const code = (await readFile(join(root, name), 'utf8')).replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      if (/\bMath\s*\.\s*random\b|\bMath\s*\[/.test(code)) random.push(name);
    }
    expect(random).toEqual([]);
    expect(await lint(process.cwd())).toEqual([]);
  }, 60_000);
});

/** Every state node of a machine, depth first. */
function stateNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => stateNodes(child as AnyStateNode))];
}

/** The names a chart refers to by string — actions, guards, spawned actors — and where. */
function references(machine: AnyStateMachine): { kind: string; name: string; at: string }[] {
  const found: { kind: string; name: string; at: string }[] = [];
  const action = (value: unknown, at: string) => {
    if (typeof value === 'string') found.push({ kind: 'actions', name: value, at });
    else if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string')
      found.push({ kind: 'actions', name: (value as { type: string }).type, at });
    else if (typeof value === 'function') {
      const { src } = value as unknown as { src?: unknown };
      if (typeof src === 'string') found.push({ kind: 'actors', name: src, at });
    }
  };
  for (const node of stateNodes(machine.root)) {
    for (const entry of node.entry) action(entry, `${node.id} entry`);
    for (const exit of node.exit) action(exit, `${node.id} exit`);
    for (const [event, transitions] of node.transitions) {
      for (const transition of transitions) {
        const at = `${node.id} on ${event}`;
        for (const step of transition.actions) action(step, at);
        const guard = transition.guard as unknown;
        if (typeof guard === 'string') found.push({ kind: 'guards', name: guard, at });
        else if (guard && typeof guard === 'object' && typeof (guard as { type?: unknown }).type === 'string')
          found.push({ kind: 'guards', name: (guard as { type: string }).type, at });
      }
    }
    for (const invoke of node.invoke)
      if (typeof invoke.src === 'string')
        found.push({ kind: 'actors', name: invoke.src, at: `${node.id} invoke` });
  }
  return found;
}

describe("XState's own checks over the four charts", () => {
  for (const [name, machine] of Object.entries(charts)) {
    it(`${name}: every target, initial state and named implementation resolves`, () => {
      // Building the definition resolves each transition's targets and each initial state: XState throws
      // on a target that does not exist, an ambiguous one or an initial state that is not a child.
      expect(() => machine.definition).not.toThrow();
      const nodes = stateNodes(machine.root);
      expect(nodes.length).toBeGreaterThan(3);
      for (const node of nodes) {
        if (node.type === 'compound') expect(node.initial.target.length, node.id).toBe(1);
        for (const [, transitions] of node.transitions)
          for (const transition of transitions)
            for (const target of transition.target ?? [])
              expect(nodes, `${node.id} → ${target.id}`).toContain(target);
      }
      // Built-in actions (xstate.assign, …) carry their own implementation; every other name must be provided.
      const implementations = machine.implementations as unknown as Record<string, Record<string, unknown>>;
      const named = references(machine);
      expect(named.length).toBeGreaterThan(0);
      const missing = named.filter(
        (reference) =>
          !reference.name.startsWith('xstate.') && !(reference.name in implementations[reference.kind]!),
      );
      expect(missing).toEqual([]);
    });
  }
});

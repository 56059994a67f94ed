// Shared pieces of the background agents tests: the ids a parent's model learns from `spawn_agent`, every
// log of a system, and the mail invariant (every message sent is delivered exactly once, and nothing is
// delivered that was not sent).

import { afterEach, expect } from 'vitest';
import { type Clock, SimulatedClock } from '../../src/core/clock.ts';
import type { ModelRequest, Provider } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import type { AnyTool } from '../../src/tools/define-tool.ts';
import { counterIds, routedModel, stepIndex, tickingClock } from './crash-kit.ts';
import { recordingTool } from './recording-tool.ts';

/** The ids of the background agents started so far, in call order, from `spawn_agent`'s results. */
export function startedIds(request: ModelRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'tool' ? [...message.content.matchAll(/Started agent (\S+?)\./g)].map((m) => m[1]!) : [],
  );
}

/** A tool call as a script step writes it. */
export const call = (name: string, input: Record<string, unknown>) => ({ name, input });

/** Every session in the store, by id. */
export async function storedLogs(store: SessionStore): Promise<Map<string, LogEvent[]>> {
  const logs = new Map<string, LogEvent[]>();
  for (const id of await store.list()) logs.set(id, (await store.load(id)).events);
  return logs;
}

/** A system to record a replay test's logs on: counter ids, a ticking clock, `bypass` mode, no instructions. */
export function recordingSystem(model: Provider, tools: AnyTool[]): AgentSystem {
  return createAgentSystem({
    model,
    tools,
    ids: counterIds(),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
}

/**
 * Records a tree for a replay test: agent `parent` runs `supervise` to the end (`All reported.`) on
 * `model` with `tools`, with counter ids and a ticking clock; every piece of mail is paired. Returns the
 * parent's log and its descendants' logs by id.
 */
export async function recordTree(
  model: Provider,
  tools: AnyTool[],
): Promise<{ root: LogEvent[]; children: Map<string, LogEvent[]> }> {
  const system = recordingSystem(model, tools);
  const parent = await system.createAgent({ id: 'parent' });
  expect(await parent.run('supervise')).toMatchObject({ reason: 'completed', text: 'All reported.' });
  await system.dispose();
  const logs = await storedLogs(system.store);
  expectMailPaired(logs);
  const root = logs.get('parent')!;
  logs.delete('parent');
  return { root, children: logs };
}

/** One piece of mail, as the sender's `message.sent` and the recipient's `inbox.queued` describe it. */
export type MailLine = { id: string; from: string; to: string; kind: string };

/**
 * Every `message.sent` in `logs` has exactly one `inbox.queued` with its id in the recipient's log, naming
 * the sender; every `inbox.queued` that names a sender has that sender's `message.sent`. Returns the mail.
 */
export function expectMailPaired(logs: ReadonlyMap<string, readonly LogEvent[]>): MailLine[] {
  const sent: MailLine[] = [];
  const received: MailLine[] = [];
  for (const [id, events] of logs)
    for (const event of events) {
      const data = event.data as Record<string, unknown>;
      if (event.type === 'message.sent')
        sent.push({
          id: String(data.id),
          from: id,
          to: String(data.to),
          kind: String(data.kind ?? 'message'),
        });
      if (event.type === 'inbox.queued' && data.from !== undefined)
        received.push({ id: String(data.id), from: String(data.from), to: id, kind: String(data.kind) });
    }
  const byId = (lines: MailLine[]) => [...lines].sort((a, b) => a.id.localeCompare(b.id));
  expect(byId(received), 'every message sent is delivered once, and only what was sent').toEqual(byId(sent));
  return byId(sent);
}

/** Simulated timers, but every read of `now` moves by one, so `ts` orders events across sessions. */
export class TickingSimulatedClock extends SimulatedClock {
  private reads = 0;
  override now(): number {
    return super.now() + this.reads++;
  }
}

/** What a test gives a system besides the defaults below: at least its model and tools. */
type SystemOptions = Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model' | 'tools'>;

/**
 * The systems of one test file: counter ids, no instruction files, `bypass` mode and (unless given) a
 * clock from `clock` — a ticking simulated one unless the file's timers must run by themselves; each one
 * made in a test is disposed after it.
 */
export function useSystems(
  clock: () => Clock = () => new TickingSimulatedClock(1_000),
): (options: SystemOptions) => AgentSystem {
  const made: AgentSystem[] = [];
  afterEach(async () => {
    for (const system of made.splice(0)) await system.dispose();
  });
  return (options) => {
    const system = createAgentSystem({
      ids: counterIds(),
      clock: clock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      ...options,
    });
    made.push(system);
    return system;
  };
}

/** A `note` tool that counts its runs: a restarted agent must not run again what completed. */
export function countingTool(): { tool: AnyTool; runs: string[] } {
  const { tool, ran } = recordingTool({
    name: 'note',
    description: 'Notes a value',
    access: 'none',
    concurrencySafe: true,
    field: 'value',
    answer: (value) => `noted ${value}`,
  });
  return { tool, runs: ran };
}

/**
 * A `supervise` prompt that spawns one background `worker` (restarted on failure, at most 3 times, 1 s
 * apart), whose first turn the provider refuses and whose second works; the parent says `Heard back.`.
 */
export function supervisedFlakyWorker(): { model: Provider; tools: AnyTool[] } {
  const worker = [
    { error: { kind: 'bad_request', message: 'the provider refused' } } as const,
    { text: 'Worked.' },
  ];
  let asked = 0;
  const model = routedModel({
    supervise: (request: ModelRequest) =>
      stepIndex(request) === 0
        ? { toolCalls: [call('spawn_agent', { agent_type: 'worker', prompt: 'work' })] }
        : { text: 'Heard back.' },
    work: () => worker[asked++] ?? { text: 'no more script' },
  });
  const supervision = { restart: 'on-failure', maxRestarts: 3, backoffMs: 1_000 } as const;
  const tools = backgroundAgentTools({ agentTypes: { worker: { description: 'Works.', supervision } } });
  return { model, tools };
}

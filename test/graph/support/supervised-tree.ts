// The tree the supervision graph suite drives: a parent (on a scripted model) that starts one child of a
// supervised agent type and waits for it, the child on a gate model the test answers, a store that can
// refuse one write of a session (the child's log then stops writing: its run breaks off), and the simulated
// clock the backoff waits on. `verify` checks how the child ended against the path's final state.
import { expect } from 'vitest';
import { scripted } from '../../../src/providers/scripted.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../../src/providers/types.ts';
import type { Agent, RunResult } from '../../../src/runtime/agent-handle.ts';
import type { ChildAgent } from '../../../src/runtime/background/child-agent.ts';
import { type AgentSystem, createAgentSystem } from '../../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../../src/session/memory-store.ts';
import type { LogEvent, SessionStore } from '../../../src/session/types.ts';
import { backgroundAgentTools } from '../../../src/tools/background-agents.ts';
import { GateProvider, type PendingRequest } from '../../support/controllable.ts';
import { assertCallsPaired, counterIds, firstUser, stepIndex, until } from '../../support/crash-kit.ts';
import { expectMailPaired, storedLogs, TickingSimulatedClock } from '../../support/mail-kit.ts';
import { supervisionInput } from '../catalogues/supervision.ts';

/** A memory store that refuses the next write of one session, once. */
export class RefusingStore implements SessionStore {
  readonly kind = 'refusing';
  private readonly inner = memoryStore();
  private refuse: string | undefined;

  refuseNextWriteOf(sessionId: string): void {
    this.refuse = sessionId;
  }

  create = (id: string) => this.inner.create(id);
  load = (id: string) => this.inner.load(id);
  exists = (id: string) => this.inner.exists(id);
  list = () => this.inner.list();
  remove = (id: string) => this.inner.remove(id);
  append = async (id: string, events: readonly LogEvent[]) => {
    if (this.refuse === id) {
      this.refuse = undefined;
      throw new Error('the store refused the write');
    }
    return this.inner.append(id, events);
  };
}

/** How a path ended: its final state, the restarts decided, the last failure, the last turn's end. */
export type PathEnd = {
  /** The path's last state; one that is not final is ended by the parent's dispose. */
  final: 'done' | 'escalated' | 'stopped' | 'running' | 'backingOff' | 'restarting';
  restarts: number;
  failure: 'model_error' | 'crashed' | undefined;
  lastEnd: string | undefined;
};

export class SupervisedTree {
  readonly childModel = new GateProvider();
  readonly store = new RefusingStore();
  readonly clock = new TickingSimulatedClock(1_000);
  readonly system: AgentSystem;
  parent!: Agent;
  run!: Promise<RunResult>;

  private constructor() {
    const parentModel = scripted(
      new Array(100).fill((request: ModelRequest) =>
        stepIndex(request) === 0
          ? { toolCalls: [{ name: 'spawn_agent', input: { agent_type: 'worker', prompt: 'child' } }] }
          : { text: 'Heard.' },
      ),
    );
    const route: Provider = {
      name: 'tree',
      model: 'gate-model',
      stream: (request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> =>
        (firstUser(request) === 'child' ? this.childModel : parentModel).stream(request, signal),
    };
    const { policy } = supervisionInput;
    this.system = createAgentSystem({
      model: route,
      tools: backgroundAgentTools({
        agentTypes: { worker: { description: 'Works.', supervision: { ...policy!, restart: 'on-failure' } } },
      }),
      store: this.store,
      ids: counterIds(),
      clock: this.clock,
      projectInstructions: false,
      permissionMode: 'bypass',
    });
  }

  /** The parent, started, with its child running its first turn. */
  static async start(): Promise<SupervisedTree> {
    const tree = new SupervisedTree();
    tree.parent = await tree.system.createAgent({ id: 'parent' });
    tree.run = tree.parent.run('go');
    tree.run.catch(() => undefined);
    await until(() => tree.parent.children().length === 1, 'the child is started');
    expect(tree.child.id).toBe(supervisionInput.childId);
    return tree;
  }

  get child(): ChildAgent {
    return this.parent.children()[0]!;
  }

  get childId(): string {
    return this.child.id;
  }

  /** The child's open model request (waits for one). */
  async childRequest(): Promise<PendingRequest> {
    const find = () => this.childModel.requests.find((request) => !request.finished && !request.aborted);
    await until(() => find() !== undefined, 'the child asks its model');
    return find()!;
  }

  /** Ends the path: the child ended as the path says; everything disposed, every session checked. */
  async verify(end: PathEnd): Promise<void> {
    const { child } = this;
    if (end.final === 'running' || end.final === 'backingOff' || end.final === 'restarting') {
      // A restart passes by itself: a path that ends in `restarting` finds the child running again.
      const state = end.final === 'restarting' ? 'running' : end.final;
      expect(child.supervision).toEqual({ state, restarts: end.restarts });
      return this.close(end, child);
    }
    await until(() => child.status !== 'running', 'the child has ended');
    const outcome = await child.result.then(
      (result) => result,
      (error: unknown) => ({ rejected: String(error) }),
    );
    const results = this.parent
      .log()
      .filter((event) => event.type === 'inbox.queued' && event.data.kind === 'result')
      .map((event) => String(event.data.message));
    if (end.final === 'done' && end.lastEnd === 'completed') {
      expect([child.status, outcome]).toMatchObject(['finished', { reason: 'completed' }]);
      expect(results).toEqual([`Agent ${child.id} finished (completed):\nDone.`]);
    } else if (end.final === 'escalated') {
      const reason = end.failure === 'crashed' ? 'interrupted' : 'model_error';
      expect([child.status, outcome]).toMatchObject(['finished', { reason }]);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatch(
        new RegExp(
          `^Agent ${child.id} finished \\(${reason}\\):\\n.*Gave up after 1 restart: ${end.failure}`,
          's',
        ),
      );
    } else {
      // Stopped: by a cancel while it ran (its turn ended `canceled`) or while it waited to be restarted.
      expect(child.status).toBe('stopped');
      expect(results).toEqual([]);
      if (end.final === 'done') expect(outcome).toMatchObject({ reason: 'canceled' });
      else if (end.failure === 'model_error') expect(outcome).toMatchObject({ reason: 'model_error' });
      else expect(outcome).toHaveProperty('rejected');
    }
    await this.close(end, child);
  }

  /** Disposes everything and checks every session: the restarts in both logs, each session closed, the mail. */
  private async close(end: PathEnd, child: ChildAgent): Promise<void> {
    await this.parent.dispose();
    await this.system.dispose();
    const logs = await storedLogs(this.store);
    const count = (events: readonly LogEvent[], type: string) =>
      events.filter((event) => event.type === type).length;
    const childLog = logs.get(child.id)!;
    expect(count(logs.get('parent')!, 'agent.restarted'), 'restarts decided').toBe(end.restarts);
    const waiting = end.final === 'stopped' || end.final === 'backingOff';
    const carriedOut = waiting ? end.restarts - 1 : end.restarts;
    expect(count(childLog, 'session.restarted'), 'restarts carried out').toBe(carriedOut);
    // A child stopped while its log could not be written keeps the log a crash would leave (a resume repairs it).
    const closed = !(waiting && end.failure === 'crashed');
    for (const [id, events] of logs) {
      if (id === child.id && !closed) continue;
      assertCallsPaired(events, id);
      expect(events.at(-1)?.type, `${id} ended`).toBe('session.end');
    }
    expectMailPaired(logs);
  }
}

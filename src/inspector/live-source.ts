import type { InspectionEvent } from 'xstate';
import type { LiveEvent } from '../actors/live-event.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { Agent } from '../runtime/agent-handle.ts';
import type { AgentSystem } from '../runtime/create-agent-system.ts';
import type { LogEvent } from '../session/types.ts';
import { compactLogEvent, compactValue } from './compact.ts';
import { InspectionProjector } from './project-inspection.ts';
import type {
  AgentsPayload,
  AgentView,
  InspectorDecision,
  InspectorMessage,
  InspectorSource,
} from './protocol.ts';
import { TimeTravel, type TravelAnswer } from './time-travel.ts';
import { agentView, type Tracked, takeLogEvent, track, waitsForApproval } from './tracked-agent.ts';

type Delta = Extract<InspectorMessage, { kind: 'delta' }>;

const keepEnded = 20;

/**
 * The inspector's view of a live agent system. Observation (XState inspection and every agent's live
 * events) runs only while at least one listener is subscribed, so an idle inspector costs the agents
 * nothing. Messages are delivered in the order they happened; deltas of one step are batched per tick,
 * and a summary of each agent that changed is sent once per tick.
 */
export class LiveSource implements InspectorSource {
  readonly kind = 'live';
  private readonly listeners = new Set<(message: InspectorMessage) => void>();
  private readonly tracked = new Map<string, Tracked>();
  private readonly ended = new Map<string, Tracked>();
  private readonly pumps = new Set<Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly deltas = new Map<string, Delta>();
  private readonly timeTravel = new TimeTravel();
  private projector = new InspectionProjector();
  private stopObserving: (() => void) | undefined;
  private stopPumps: (() => void) | undefined;
  private flushScheduled = false;

  constructor(
    private readonly system: AgentSystem,
    private readonly title = 'agentchart — live',
  ) {}

  agents(): AgentsPayload {
    const live = this.system.list().map((agent) => this.viewOf(this.tracked.get(agent.id) ?? track(agent)));
    const liveIds = new Set(live.map((view) => view.id));
    const ended = [...this.ended.values()].filter((entry) => !liveIds.has(entry.agent.id));
    return {
      source: 'live',
      title: this.title,
      agents: [...live, ...ended.map((entry) => this.viewOf(entry))],
      // From the system, not the logs: a task that ended before the page opened is no agent here any more.
      jobs: this.system.jobs.list(),
    };
  }

  decide(agentId: string, callId: string, decision: InspectorDecision): 'ok' | 'no_agent' | 'not_waiting' {
    const agent = this.system.list().find((candidate) => candidate.id === agentId);
    if (!agent) return 'no_agent';
    if (!waitsForApproval(agent.log(), callId)) return 'not_waiting';
    if (decision.approve)
      agent.approve(callId, {
        ...(decision.remember ? { remember: decision.remember } : {}),
        ...(decision.mode ? { mode: decision.mode } : {}),
      });
    else agent.deny(callId, decision.reason ?? 'denied from the inspector');
    return 'ok';
  }

  log(agentId: string): LogEvent[] | undefined {
    return this.agentOf(agentId)
      ?.log()
      .map((event) => compactLogEvent(event));
  }

  travel(agentId: string, seq: number): Promise<TravelAnswer | undefined> {
    const agent = this.agentOf(agentId);
    if (!agent) return Promise.resolve(undefined);
    // The logs of the other agents this page knows (live, or ended lately): a session's subagents re-run
    // from theirs; one no longer known makes time travel say which child's log it lacks.
    const others = [...this.system.list(), ...[...this.ended.values()].map((entry) => entry.agent)];
    const subagentLogs = new Map(
      others.filter((other) => other.id !== agentId).map((other) => [other.id, other.log()]),
    );
    return this.timeTravel.at(agentId, agent.log(), seq, subagentLogs);
  }

  contexts(agentId: string): Record<string, unknown> | undefined {
    const agent = this.system.list().find((candidate) => candidate.id === agentId);
    if (!agent) return undefined;
    const contexts: Record<string, unknown> = {};
    for (const [path, context] of agent.machineContexts())
      contexts[path] = compactValue(context, { maxString: 300, maxDepth: 4, maxEntries: 30 });
    return contexts;
  }

  private agentOf(agentId: string): Agent | undefined {
    return this.system.list().find((candidate) => candidate.id === agentId) ?? this.ended.get(agentId)?.agent;
  }

  subscribe(listener: (message: InspectorMessage) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.startObserving();
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.stopObservation();
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.stopObservation();
  }

  private startObserving(): void {
    this.projector = new InspectionProjector();
    let stop!: () => void;
    const stopped = new Promise<'stop'>((resolve) => (stop = () => resolve('stop')));
    this.stopPumps = stop;
    const stopInspection = this.system.inspect((event) => this.onInspection(event));
    const stopJobs = this.system.jobs.subscribe(() =>
      this.emit({ kind: 'jobs', jobs: this.system.jobs.list() }),
    );
    this.stopObserving = () => {
      stopInspection();
      stopJobs();
    };
    // Agents alive now are in the snapshot a client gets; later ones send their log from the start.
    for (const agent of this.system.list()) this.follow(agent, stopped, false);
    this.followNew = (agent) => this.follow(agent, stopped, true);
  }

  private followNew: ((agent: Agent) => void) | undefined;

  private async stopObservation(): Promise<void> {
    this.stopObserving?.();
    this.stopObserving = undefined;
    this.stopPumps?.();
    this.stopPumps = undefined;
    this.followNew = undefined;
    this.flushDeltas();
    await Promise.all(this.pumps);
    this.tracked.clear();
  }

  private onInspection(event: InspectionEvent): void {
    try {
      for (const message of this.projector.project(event)) {
        this.emit(message);
        const agentId = 'agentId' in message ? message.agentId : null;
        if (agentId === null) continue;
        if (!this.tracked.has(agentId)) this.discover(agentId);
        this.markDirty(agentId);
      }
    } catch (error) {
      // Inspection runs inside XState's dispatch: a failure here must not reach the agents.
      this.emit({ kind: 'error', agentId: '', message: `inspector: ${messageOf(error)}` });
    }
  }

  /**
   * Follows an agent as soon as it is published, synchronously: its first live events (the deltas of a
   * turn started right after `createAgent`) must not be missed.
   */
  private discover(agentId: string): void {
    if (!this.followNew) return;
    const agent = this.system.list().find((candidate) => candidate.id === agentId);
    if (agent) this.followNew(agent);
  }

  /** Follows one agent's live events until it is disposed or observation stops. */
  private follow(agent: Agent, stopped: Promise<'stop'>, sendLog: boolean): void {
    if (this.tracked.has(agent.id)) return;
    // Subscribe before reading the log, so nothing falls between the two; `apply` skips repeats by seq.
    const iterator = agent.events();
    const entry = track(agent);
    this.tracked.set(agent.id, entry);
    if (sendLog)
      for (const event of agent.log())
        this.emit({ kind: 'log', agentId: agent.id, event: compactLogEvent(event) });
    const pump = (async () => {
      for (;;) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === 'stop') {
          await iterator.return?.();
          return;
        }
        if (next.done) break;
        this.onLive(entry, next.value);
      }
      // The agent was disposed: keep its final view (and log) for a while.
      this.tracked.delete(agent.id);
      this.ended.set(agent.id, entry);
      if (this.ended.size > keepEnded) this.ended.delete(this.ended.keys().next().value as string);
      this.markDirty(agent.id);
    })().catch((error: unknown) =>
      this.emit({ kind: 'error', agentId: agent.id, message: messageOf(error) }),
    );
    this.pumps.add(pump);
    void pump.finally(() => this.pumps.delete(pump));
  }

  private onLive(entry: Tracked, event: LiveEvent): void {
    const agentId = entry.agent.id;
    switch (event.type) {
      case 'log': {
        const compact = takeLogEvent(entry, event.event);
        if (!compact) return;
        this.emit({ kind: 'log', agentId, event: compact });
        this.markDirty(agentId);
        return;
      }
      case 'model.delta':
      case 'thinking.delta':
        this.addDelta({
          kind: 'delta',
          agentId,
          turn: event.turn,
          step: event.step,
          text: event.text,
          thinking: event.type === 'thinking.delta',
        });
        return;
      case 'tool.progress':
        this.emit({
          kind: 'progress',
          agentId,
          callId: event.callId,
          progress: compactValue(event.progress),
        });
        return;
      case 'runtime.error':
        this.emit({ kind: 'error', agentId, message: event.message });
        return;
    }
  }

  private addDelta(delta: Delta): void {
    const key = `${delta.agentId}\n${delta.turn}\n${delta.step}\n${delta.thinking}`;
    const pending = this.deltas.get(key);
    if (pending) pending.text += delta.text;
    else this.deltas.set(key, delta);
    this.scheduleFlush();
  }

  private flushDeltas(): void {
    if (this.deltas.size === 0) return;
    const pending = [...this.deltas.values()];
    this.deltas.clear();
    for (const delta of pending) for (const listener of this.listeners) listener(delta);
  }

  /** Sends a message to every listener, after any batched deltas, which happened before it. */
  private emit(message: InspectorMessage): void {
    this.flushDeltas();
    for (const listener of this.listeners) listener(message);
  }

  private markDirty(agentId: string): void {
    this.dirty.add(agentId);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    this.flushDeltas();
    for (const agentId of this.dirty) {
      const entry = this.tracked.get(agentId) ?? this.ended.get(agentId);
      if (!entry) continue;
      const view = this.viewOf(entry);
      const summary = JSON.stringify(view);
      if (summary === entry.lastSummary) continue;
      entry.lastSummary = summary;
      for (const listener of this.listeners) listener({ kind: 'agent', agent: view });
    }
    this.dirty.clear();
  }

  private viewOf(entry: Tracked): AgentView {
    const { id } = entry.agent;
    return agentView(entry, this.tracked.has(id) || !this.ended.has(id));
  }
}

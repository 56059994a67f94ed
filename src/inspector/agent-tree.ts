// The tree of agents and the mail between them, as the inspector page draws it (its Agents tab), from
// nothing but the logs: each session's `session.start.parent`, its parent's `agent.spawned` and the call
// that made it (`spawn_agent` or `task`), and every `message.sent` paired with its `inbox.queued` by id.
//
// The page runs these very functions: they are served as their source (`agentTreeFunctions`), like the
// cost estimate, so the page and the tests of this file cannot disagree. That is why they read no
// module-level name but each other's, and import nothing but types.
import type { LogEvent } from '../session/types.ts';
import type { AgentNodeView, AgentRelation, AgentTreeView, MailView, ReadLog } from './agent-tree-view.ts';

/**
 * The agents of `logs` (session id → events, in log order) as a tree in display order (each parent before
 * its children, children in the order they were started), with their task, activity and result, and the
 * mail between them in the order it was sent. With `until` (a time of the injected clock, as the events'
 * `ts` carry it), only what was logged by then counts: the tree and the mail as they stood at that time.
 */
export function projectAgentTree(
  logs: ReadonlyMap<string, readonly LogEvent[]>,
  until?: number,
): AgentTreeView {
  const read = new Map<string, ReadLog>();
  for (const [id, all] of logs) {
    const events = until === undefined ? [...all] : all.filter((event) => event.ts <= until);
    const log = readAgentLog(id, events);
    if (log) read.set(id, log);
  }
  const mail = joinMail([...read.values()]);
  const nodes = new Map([...read].map(([id, log]) => [id, log.node]));
  // Children a parent's log names whose own log is not here (yet): shown, marked as not logged.
  for (const [parentId, log] of read)
    for (const childId of log.spawns.keys())
      if (!nodes.has(childId))
        nodes.set(childId, {
          id: childId,
          parent: parentId,
          depth: 0,
          relation: 'root',
          activity: 'running',
          children: [],
          logged: false,
        });
  for (const node of nodes.values()) {
    const parent = node.parent !== undefined ? read.get(node.parent) : undefined;
    describeTask(node, parent);
    const own = read.get(node.id);
    if (own) settleActivity(node, own, mail);
    noteRestarts(node, parent, own);
  }
  return { agents: treeOrder(nodes, read), mail };
}

/** The node, links and mail of one log; undefined for a log that does not begin with `session.start`. */
export function readAgentLog(id: string, events: LogEvent[]): ReadLog | undefined {
  const start = events[0];
  if (start?.type !== 'session.start') return undefined;
  const parent = typeof start.data.parent === 'string' ? start.data.parent : undefined;
  const node: AgentNodeView = {
    id,
    depth: 0,
    relation: 'root',
    activity: 'idle',
    startedAt: start.ts,
    children: [],
    logged: true,
  };
  if (parent !== undefined) node.parent = parent;
  const log: ReadLog = {
    ...{ node, events, spawns: new Map(), calls: new Map(), sent: [], received: [] },
    ...{ restartsDecided: new Map(), restarted: [] },
  };
  const failure = (data: Record<string, unknown>) =>
    typeof data.error === 'string'
      ? { reason: String(data.reason), error: data.error }
      : { reason: String(data.reason) };
  for (const event of events) {
    const data = event.data;
    if (event.type === 'tool.call' && typeof data.callId === 'string') {
      const input =
        data.input && typeof data.input === 'object' ? (data.input as Record<string, unknown>) : {};
      log.calls.set(data.callId, { name: String(data.name), input });
    } else if (event.type === 'tool.result' && typeof data.callId === 'string') {
      const call = log.calls.get(data.callId);
      if (call) call.result = typeof data.content === 'string' ? data.content : JSON.stringify(data.content);
    } else if (event.type === 'agent.spawned' && typeof data.childSessionId === 'string') {
      const relation: AgentRelation = data.background === true ? 'background' : 'task';
      const spawn = {
        callId: String(data.callId),
        relation,
        wait: data.wait !== false,
        typed: data.output !== undefined,
      };
      const policy = data.supervision as { maxRestarts?: unknown } | undefined;
      const max = typeof policy?.maxRestarts === 'number' ? { maxRestarts: policy.maxRestarts } : {};
      log.spawns.set(data.childSessionId, { ...spawn, ...max });
    } else if (event.type === 'agent.restarted' && typeof data.childSessionId === 'string') {
      const decided = log.restartsDecided.get(data.childSessionId) ?? [];
      decided.push(failure(data));
      log.restartsDecided.set(data.childSessionId, decided);
    } else if (event.type === 'session.restarted') {
      log.restarted.push(failure(data));
    } else if (event.type === 'message.sent' && typeof data.id === 'string') {
      const kind = data.kind === 'result' ? 'result' : 'message';
      const mail: MailView = {
        id: data.id,
        from: id,
        to: String(data.to),
        kind,
        text: String(data.text),
        sentAt: event.ts,
      };
      if (typeof data.reason === 'string') mail.reason = data.reason;
      if (data.by === 'host') mail.byHost = true;
      log.sent.push(mail);
    } else if (
      event.type === 'inbox.queued' &&
      typeof data.from === 'string' &&
      typeof data.id === 'string'
    ) {
      const kind = data.kind === 'result' ? 'result' : 'message';
      log.received.push({
        id: data.id,
        from: data.from,
        to: id,
        kind,
        text: String(data.message),
        receivedAt: event.ts,
      });
    } else if (event.type === 'session.end') node.endedAt = event.ts;
  }
  return log;
}

/** Every piece of mail, sent joined with received by id, in the order it was sent (received, if never sent here). */
export function joinMail(logs: ReadLog[]): MailView[] {
  const mail = new Map<string, MailView>();
  for (const log of logs) for (const sent of log.sent) mail.set(sent.id, { ...sent });
  for (const log of logs)
    for (const got of log.received) {
      const sent = mail.get(got.id);
      // Mail whose sender's log is not here is still shown, as the recipient read it.
      if (sent) sent.receivedAt = got.receivedAt;
      else mail.set(got.id, { ...got });
    }
  const at = (item: MailView) => item.sentAt ?? item.receivedAt ?? 0;
  return [...mail.values()].sort((a, b) => at(a) - at(b));
}

/** How the parent started `node` and what for: the call's label, agent type and prompt, a task's result. */
export function describeTask(node: AgentNodeView, parent: ReadLog | undefined): void {
  const spawn = parent?.spawns.get(node.id);
  if (node.parent !== undefined && !spawn) node.relation = 'unlinked';
  if (!spawn || !parent) return;
  node.relation = spawn.relation;
  node.callId = spawn.callId;
  if (spawn.typed) node.typed = true;
  const call = parent.calls.get(spawn.callId);
  if (!call) return;
  const cut = (text: unknown, max: number): string | undefined =>
    typeof text !== 'string' || text === ''
      ? undefined
      : text.length > max
        ? `${text.slice(0, max - 1)}…`
        : text;
  const prompt = typeof call.input.prompt === 'string' ? call.input.prompt : '';
  // As `list_agents` labels a child: its description, else the first line of its prompt.
  const description = cut(call.input.description, 200) ?? cut(prompt.split('\n')[0], 60);
  if (description !== undefined) node.description = description;
  if (typeof call.input.agent_type === 'string') node.agentType = call.input.agent_type;
  const head = cut(prompt, 300);
  if (head !== undefined) node.prompt = head;
  if (spawn.relation === 'task' && call.result !== undefined) node.result = call.result;
}

/** What the agent is doing at the end of its (cut) log: see `AgentActivity`. */
export function settleActivity(node: AgentNodeView, log: ReadLog, mail: MailView[]): void {
  let turnOpen = false;
  let answered = false;
  let cancelledByParent = false;
  const pending = new Map<string, string>();
  const asked = new Set<string>();
  for (const event of log.events) {
    const data = event.data;
    const callId = String(data.callId);
    if (event.type === 'turn.start') turnOpen = true;
    else if (event.type === 'turn.end') [turnOpen, node.reason] = [false, String(data.reason)];
    else if (event.type === 'step.start') answered = false;
    else if (event.type === 'assistant.message')
      answered = !Array.isArray(data.toolCalls) || data.toolCalls.length === 0;
    else if (event.type === 'tool.call') pending.set(callId, String(data.name));
    else if (event.type === 'tool.result') {
      pending.delete(callId);
      asked.delete(callId);
    } else if (event.type === 'approval.asked') asked.add(callId);
    else if (event.type === 'approval.decided') asked.delete(callId);
    else if (event.type === 'cancel.requested' && data.by === 'parent') cancelledByParent = true;
    else if (event.type === 'message.sent' && data.kind === 'result') {
      node.result = String(data.text);
      if (typeof data.reason === 'string') node.reason = data.reason;
    }
  }
  // The children its turn waits for: background ones started with `wait` whose result has not come.
  const waitedFor = [...log.spawns]
    .filter(([, spawn]) => spawn.relation === 'background' && spawn.wait)
    .map(([childId]) => childId)
    .filter(
      (childId) =>
        !mail.some(
          (item) =>
            item.from === childId &&
            item.to === node.id &&
            item.kind === 'result' &&
            item.receivedAt !== undefined,
        ),
    );
  // A child's turn is its whole life: once it ended (or its result went out) the child is done.
  const isChild = node.relation !== 'root';
  const done =
    isChild && node.reason !== undefined ? 'finished' : node.endedAt !== undefined ? 'ended' : 'idle';
  const waiting = (what: string) => {
    node.activity = 'waiting';
    node.waitingFor = what;
  };
  if (node.relation === 'background' && node.result !== undefined) node.activity = 'finished';
  else if (isChild && cancelledByParent && !turnOpen) node.activity = 'stopped';
  else if (!turnOpen || node.endedAt !== undefined) node.activity = done;
  else if (asked.size > 0)
    waiting(`approval of ${[...asked].map((id) => `${pending.get(id)} ${id}`).join(', ')}`);
  else if ([...pending.values()].includes('wait_agents')) waiting('mail (wait_agents)');
  else if (answered && pending.size === 0 && waitedFor.length > 0)
    waiting(`its agents ${waitedFor.join(', ')}`);
  else node.activity = 'running';
}

/**
 * A supervised agent's restarts: those its parent decided (a job task's, which has no parent log: those
 * its own log made). A restart decided but not yet made means it is backing off: it waits for it.
 */
export function noteRestarts(node: AgentNodeView, parent: ReadLog | undefined, own: ReadLog | undefined) {
  const decided = parent?.restartsDecided.get(node.id) ?? own?.restarted ?? [];
  const last = decided.at(-1);
  if (!last) return;
  const made = own?.restarted.length ?? 0;
  const max = parent?.spawns.get(node.id)?.maxRestarts;
  const view = { count: decided.length, lastReason: last.reason, backingOff: decided.length > made };
  node.restarts = {
    ...view,
    ...(max !== undefined ? { max } : {}),
    ...(last.error !== undefined ? { lastError: last.error } : {}),
  };
  // Its turn ended with the failure, but it is not done: it will go on once the wait is over.
  if (view.backingOff && node.activity !== 'stopped') {
    node.activity = 'waiting';
    const of = max !== undefined ? ` of ${max}` : '';
    node.waitingFor = `its restart ${decided.length}${of} after ${last.reason}`;
  }
}

/** Roots in the order the logs were given, each parent's children in the order it started them. */
export function treeOrder(nodes: Map<string, AgentNodeView>, read: Map<string, ReadLog>): AgentNodeView[] {
  const ordered: AgentNodeView[] = [];
  const placed = new Set<string>();
  const place = (node: AgentNodeView, depth: number): void => {
    if (placed.has(node.id)) return;
    placed.add(node.id);
    node.depth = depth;
    ordered.push(node);
    const started = [...(read.get(node.id)?.spawns.keys() ?? [])];
    const others = [...nodes.values()].filter(
      (other) => other.parent === node.id && !started.includes(other.id),
    );
    for (const childId of [...started, ...others.map((other) => other.id)]) {
      const child = nodes.get(childId);
      if (!child || placed.has(childId)) continue;
      node.children.push(childId);
      place(child, depth + 1);
    }
  };
  for (const node of nodes.values()) if (node.parent === undefined || !nodes.has(node.parent)) place(node, 0);
  // A cycle of parents (a hostile log) has no root: its agents still show, at the top.
  for (const node of nodes.values()) place(node, 0);
  return ordered;
}

/** The functions above, in the order the page defines them (`agentTreeScript`). */
export const agentTreeFunctions = [
  projectAgentTree,
  readAgentLog,
  joinMail,
  describeTask,
  settleActivity,
  noteRestarts,
  treeOrder,
];

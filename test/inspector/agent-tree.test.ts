// The tree of agents and their mail, projected from the logs of a real run (a supervisor, two background
// children, a host's message, a message back, two results): as it stands mid-run, at the end, and cut at a
// time of the injected clock; the same projection the page runs (served as its source); a task child;
// logs that are missing or hostile.
import { describe, expect, it } from 'vitest';
import { projectAgentTree } from '../../src/inspector/agent-tree.ts';
import type { AgentTreeView } from '../../src/inspector/agent-tree-view.ts';
import { pageAsset } from '../../src/inspector/assets.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { backgroundSpawns } from '../../src/session/mail-log.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import { taskTool } from '../../src/tools/task.ts';
import { storedLogs, useSystems } from '../support/mail-kit.ts';
import { hostileText, startSupervisor, supervisorOptions } from '../support/supervisor-run.ts';

const systemFor = useSystems();

/** The logs of a parent and its background children as the live handles hold them (the store may lag). */
const treeLogs = (parent: Agent) =>
  new Map<string, readonly LogEvent[]>([
    [parent.id, parent.log()],
    ...parent.children().map((child) => [child.id, child.log()] as [string, readonly LogEvent[]]),
  ]);

/** The tree as lines a person reads: depth, id, relation, activity, task, reason, result. */
const outline = (view: AgentTreeView) =>
  view.agents.map((node) =>
    [
      '  '.repeat(node.depth) + node.id,
      node.relation,
      node.agentType ?? '-',
      node.activity + (node.waitingFor ? ` (${node.waitingFor})` : ''),
      node.description ?? '-',
      node.reason ?? '-',
      node.result ?? '-',
    ].join(' | '),
  );
const mailLines = (view: AgentTreeView) =>
  view.mail.map((m) =>
    [
      m.from,
      m.to,
      m.kind,
      m.reason ?? '-',
      m.byHost ? 'host' : '-',
      m.text,
      m.receivedAt ? 'received' : 'not yet',
    ].join(' | '),
  );

describe('the agent tree projected from the logs', () => {
  it('shows who started whom, what each does and hands back, and the mail, mid-run and at the end', async () => {
    const system = systemFor(supervisorOptions());
    const parent = await system.createAgent({ id: 'parent' });
    const { childA, childB, goOn } = await startSupervisor(parent);

    // The two spawns run side by side: the tree lists the children in the order the parent linked them.
    const spawned = parent
      .log()
      .filter((event) => event.type === 'agent.spawned')
      .map((event) => String(event.data.childSessionId));
    const children = (lines: Record<string, string>) => spawned.map((id) => lines[id]!);
    const midRun = projectAgentTree(treeLogs(parent));
    expect(outline(midRun)).toEqual([
      `parent | root | - | waiting (its agents ${childA}) | - | - | -`,
      ...children({
        [childA]: `  ${childA} | background | - | waiting (mail (wait_agents)) | Waits for word | - | -`,
        [childB]: `  ${childB} | background | reader | finished | worker B | completed | B result`,
      }),
    ]);
    expect(mailLines(midRun)).toEqual([`${childB} | parent | result | completed | - | B result | received`]);
    const cutAt = Math.max(...[...treeLogs(parent).values()].flat().map((event) => event.ts));

    expect(await goOn()).toMatchObject({ reason: 'completed', text: 'All reported.' });
    const logs = treeLogs(parent);
    const end = projectAgentTree(logs);
    expect(outline(end)).toEqual([
      'parent | root | - | idle | - | completed | -',
      ...children({
        [childA]: `  ${childA} | background | - | finished | Waits for word | completed | A result`,
        [childB]: `  ${childB} | background | reader | finished | worker B | completed | B result`,
      }),
    ]);
    expect(mailLines(end)).toEqual([
      `${childB} | parent | result | completed | - | B result | received`,
      `parent | ${childA} | message | - | host | Go on. | received`,
      `${childA} | parent | message | - | - | ${hostileText} | received`,
      `${childA} | parent | result | completed | - | A result | received`,
    ]);
    // Every piece of mail is stamped with the injected clock, sent before it was received.
    for (const m of end.mail) expect(m.sentAt).toBeLessThan(m.receivedAt!);
    expect(end.agents.find((node) => node.id === childA)).toMatchObject({
      prompt: 'worker A\nWait for word from me.',
      callId: 'call_0_0',
      logged: true,
    });
    expect(end.agents.map((node) => node.children)).toEqual([spawned, [], []]);

    // Cut at the last time logged mid-run: the tree and the mail as they stood then.
    const then = projectAgentTree(logs, cutAt);
    expect(outline(then)).toEqual(outline(midRun));
    expect(mailLines(then)).toEqual(mailLines(midRun));
    // A child is created, then linked: between the two it is there, not yet linked; before, it is not.
    const linked = logs.get('parent')!.find((event) => event.type === 'agent.spawned')!.ts;
    const beforeLink = outline(projectAgentTree(logs, linked - 1));
    expect(beforeLink[0]).toBe('parent | root | - | running | - | - | -');
    expect(beforeLink.length).toBeGreaterThan(1);
    for (const line of beforeLink.slice(1)) expect(line).toMatch(/^ {2}id\d+ \| unlinked \| - \| idle \|/);
    const created = Math.min(logs.get(childA)![0]!.ts, logs.get(childB)![0]!.ts);
    expect(outline(projectAgentTree(logs, created - 1))).toEqual(['parent | root | - | running | - | - | -']);

    // The labels are the ones list_agents gives (the runtime's own reading of the parent's log).
    expect(
      backgroundSpawns(logs.get('parent')!).map((spawn) => [
        spawn.childId,
        spawn.description,
        spawn.agentType,
      ]),
    ).toEqual(end.agents.slice(1).map((node) => [node.id, node.description, node.agentType]));

    // The page runs the same functions, served as their source: the same view from the same logs.
    const tree = pageAsset('tree.js')!;
    const served = (await import(`data:text/javascript,${encodeURIComponent(tree)}`)) as {
      projectAgentTree: typeof projectAgentTree;
    };
    expect(served.projectAgentTree(logs)).toEqual(end);
    expect(served.projectAgentTree(logs, cutAt)).toEqual(then);
  });

  it('shows a task child with its description and the result its call returned', async () => {
    const model = scripted([
      {
        toolCalls: [
          { id: 't1', name: 'task', input: { description: 'Count files', prompt: 'Count the files.' } },
        ],
      },
      { text: 'There are 3.' },
      { text: 'The subagent says 3.' },
    ]);
    const system = systemFor({ model, tools: [taskTool()] });
    const parent = await system.createAgent({ id: 'parent' });
    await parent.run('delegate');
    await system.dispose(); // every log written to the store
    const view = projectAgentTree(await storedLogs(system.store));
    expect(outline(view).map((line) => line.replace(/id\d+/, 'child'))).toEqual([
      'parent | root | - | ended | - | completed | -',
      '  child | task | - | finished | Count files | completed | There are 3.',
    ]);
    expect(view.mail).toEqual([]);
  });

  it('keeps a child whose log is missing, mail whose sender is missing, and survives hostile logs', () => {
    const event = (seq: number, type: string, data: Record<string, unknown>, ts = 1_000 + seq) =>
      ({ v: 1, seq, ts, type, data }) as LogEvent;
    const parentLog = [
      event(0, 'session.start', { agentId: 'p', config: {} }),
      event(1, 'tool.call', { callId: 'c1', name: 'spawn_agent', input: { prompt: 'x'.repeat(500) } }),
      event(2, 'agent.spawned', { childSessionId: 'gone', callId: 'c1', background: true }),
      event(3, 'inbox.queued', {
        id: 'm1',
        channel: 'followup',
        message: 'Message from agent gone:\nhi',
        from: 'gone',
        kind: 'message',
      }),
    ];
    // Two sessions that name each other as parent, and one log that does not begin with session.start.
    const loop = [
      ['a', [event(0, 'session.start', { agentId: 'a', parent: 'b', config: {} })]],
      ['b', [event(0, 'session.start', { agentId: 'b', parent: 'a', config: {} })]],
      ['junk', [event(0, 'turn.start', {})]],
    ] as const;
    const view = projectAgentTree(
      new Map<string, LogEvent[]>([
        ['p', parentLog],
        ...loop.map(([id, log]) => [id, [...log]] as [string, LogEvent[]]),
      ]),
    );
    expect(view.agents.map((node) => [node.id, node.depth, node.logged, node.activity])).toEqual([
      ['p', 0, true, 'idle'],
      ['gone', 1, false, 'running'],
      ['a', 0, true, 'idle'],
      ['b', 1, true, 'idle'],
    ]);
    expect(view.agents[1]!.description).toHaveLength(60);
    expect(view.mail).toEqual([
      {
        id: 'm1',
        from: 'gone',
        to: 'p',
        kind: 'message',
        text: 'Message from agent gone:\nhi',
        receivedAt: 1_003,
      },
    ]);
  });
});

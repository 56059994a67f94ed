// Time travel's answers where a recording cannot be re-run to its end: a note saying why, the frames it
// could compute, and at every other seq the position derived from the log. No answer leaves the page waiting.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { InspectorSource } from '../../src/inspector/protocol.ts';
import { RecordedSource } from '../../src/inspector/recorded-source.ts';
import { serveInspector } from '../../src/inspector/server.ts';
import { TimeTravel, type TravelAnswer } from '../../src/inspector/time-travel.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent, LogEventOf } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { getJson } from './sse-reader.ts';

const echo = defineTool({
  name: 'echo',
  description: 'Echo text',
  access: 'read',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

/** One turn: the model calls echo, reads its result and answers. */
async function record(): Promise<LogEvent[]> {
  let n = 0;
  const system = createAgentSystem({
    model: scripted([
      { text: 'Echoing.', toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'a' } }] },
      { text: 'Done.' },
    ]),
    tools: [echo],
    ids: () => `id${++n}`,
    projectInstructions: false,
  });
  const agent = await system.createAgent({ id: 's1' });
  await agent.run('go');
  await system.dispose();
  return [...agent.log()];
}

/** The model's call renamed to a tool the recording never offered: the re-run refuses it unrun. */
function renamed(events: LogEvent[]): LogEvent[] {
  return events.map((event) =>
    event.type === 'session.start'
      ? event
      : JSON.parse(JSON.stringify(event).replaceAll('"name":"echo"', '"name":"echo_twice"')),
  );
}

const divergedAt8 =
  'the re-run went another way at seq 8 (approval.decided): the runtime wrote tool.result where the recording has approval.decided';

describe('time travel answers', () => {
  it('where the re-run goes another way: frames before, then a note and the log position at every seq', async () => {
    const events = renamed(await record());
    expect(events.map((event) => event.type)).toEqual([
      'session.start',
      'inbox.queued',
      'turn.start',
      'inbox.claimed',
      'user.message',
      'step.start',
      'assistant.message',
      'tool.call',
      'approval.decided',
      'tool.started',
      'tool.result',
      'step.end',
      'step.start',
      'assistant.message',
      'step.end',
      'turn.end',
      'session.end',
    ]);
    const travel = new TimeTravel();
    const answers = await Promise.all(events.map((event) => travel.at('s1', events, event.seq)));
    // Up to the divergence: the states computed, and the note that says where they stop.
    for (const answer of answers.slice(0, 8)) {
      expect(answer.frame?.id).toBe('agent');
      expect({ ...answer, frame: undefined }).toEqual({
        seq: answer.seq,
        frame: undefined,
        computedUpTo: 7,
        note: divergedAt8,
      });
    }
    // From it on: no states, the same note, and where the log stands at that seq.
    for (const answer of answers.slice(8)) {
      expect(answer.frame).toBeUndefined();
      expect(answer.note).toBe(divergedAt8);
      expect(answer.position?.event.type).toBe(events[answer.seq]!.type);
    }
    const decision = 'allow by mode: read access is allowed in default mode';
    expect(answers[9]).toEqual({
      seq: 9,
      computedUpTo: 7,
      note: divergedAt8,
      position: {
        event: { type: 'tool.started', turn: 1, step: 1 },
        turn: { turn: 1, state: 'running' },
        step: { step: 1, state: 'executing_tools', attempts: 0 },
        calls: [{ callId: 'c1', name: 'echo_twice', state: 'running', decision }],
        awaitingApproval: [],
        ended: false,
      },
    });
    expect(answers[16]).toEqual({
      seq: 16,
      computedUpTo: 7,
      note: divergedAt8,
      position: {
        event: { type: 'session.end' },
        turn: { turn: 1, state: 'ended', reason: 'completed' },
        step: { step: 2, state: 'done', attempts: 0 },
        calls: [],
        awaitingApproval: [],
        ended: true,
      },
    });
    // Past the log's end (an arrow key too many): a note, not a wait.
    expect(await travel.at('s1', events, 17)).toEqual({
      seq: 17,
      computedUpTo: -1,
      note: 'seq 17 is past the end of the log (17 events)',
    });
  });

  it('where the recording cannot be re-run at all: the reason and the log position at every seq', async () => {
    const events = await record();
    const start = events[0] as LogEventOf<'session.start'>;
    const damaged = [
      {
        ...start,
        data: { ...start.data, config: { ...start.data.config, compaction: { threshold: 'high' } } },
      },
      ...events.slice(1),
    ] as LogEvent[];
    const travel = new TimeTravel();
    const answers = await Promise.all(damaged.map((event) => travel.at('s1', damaged, event.seq)));
    const notes = new Set(answers.map((answer) => answer.note));
    expect(notes.size).toBe(1);
    expect([...notes][0]).toMatch(/^time travel is not available for this session: .*compaction/);
    for (const answer of answers) {
      expect(answer).toMatchObject({ seq: answer.seq, computedUpTo: -1 });
      expect(answer.frame).toBeUndefined();
      expect(answer.position?.event.type).toBe(damaged[answer.seq]!.type);
    }
    expect(answers[0]!.position).toEqual({
      event: { type: 'session.start' },
      calls: [],
      awaitingApproval: [],
      ended: false,
    });
  });

  it('over HTTP: a recording that diverges answers with the note, a source that fails with a 500 and a note', async () => {
    const events = renamed(await record());
    const inspector = await serveInspector(new RecordedSource([{ sessionId: 's1', events }], 'tampered'));
    try {
      const last = await getJson<TravelAnswer>(inspector.url, '/api/agents/s1/travel?seq=16');
      expect(last.status).toBe(200);
      expect(last.body).toMatchObject({ seq: 16, computedUpTo: 7, note: divergedAt8 });
      expect(last.body.position?.ended).toBe(true);
    } finally {
      await inspector.close();
    }

    const reported: unknown[] = [];
    const failure = new Error('the store went away');
    const failing: InspectorSource = {
      kind: 'recorded',
      agents: () => ({ source: 'recorded', title: 'failing', agents: [] }),
      log: () => [],
      subscribe: () => () => {},
      travel: () => Promise.reject(failure),
      close: async () => {},
    };
    const server = await serveInspector(failing, { onError: (error) => reported.push(error) });
    try {
      const answer = await getJson(server.url, '/api/agents/s1/travel?seq=3');
      const note = 'time travel failed on the server: the store went away';
      expect(answer).toEqual({ status: 500, body: { seq: 3, computedUpTo: -1, note, error: note } });
      expect(reported).toEqual([failure]);
    } finally {
      await server.close();
    }
  });
});

// The live inspector while a real agent runs a turn: the event stream (actor tree, states, log, deltas)
// and the /api/agents view of a held tool call.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsPayload, InspectorMessage } from '../../src/inspector/protocol.ts';
import { closeOpened, connect, heldTurn, setup } from './live-setup.ts';
import { getJson } from './sse-reader.ts';

afterEach(closeOpened);

const ofAgent = (messages: InspectorMessage[], kind: InspectorMessage['kind']) =>
  messages.filter((m) => m.kind === kind && 'agentId' in m && m.agentId === 'a1');

type ActorMessage = Extract<InspectorMessage, { kind: 'actor' }>;
type StateMessage = Extract<InspectorMessage, { kind: 'state' }>;

function stateName(value: unknown): string {
  if (value === null) return '·';
  if (typeof value === 'string') return value;
  const [key, inner] = Object.entries(value as Record<string, unknown>)[0]!;
  return `${key}.${stateName(inner)}`;
}

describe('live inspector', () => {
  it('streams the actor tree with parent links, state changes in order, log events and deltas', async () => {
    const s = await setup();
    const reader = await connect(s.inspector.url);
    const { agent } = await heldTurn(s);
    const messages = await reader.until((all) =>
      all.some((m) => m.kind === 'log' && m.event.type === 'turn.end'),
    );
    const actors = ofAgent(messages, 'actor') as ActorMessage[];
    const find = (path: string) => actors.filter((a) => a.path.join('/') === path);
    const [root] = find('');
    const [turn] = find('turn');
    const [step] = find('turn/step');
    const [batch] = find('turn/step/batch');
    const [call] = find('turn/step/batch/call:c1');
    expect(root).toMatchObject({ src: 'agent', parent: null, agentId: 'a1' });
    expect(turn).toMatchObject({ src: 'turn', parent: root!.actor });
    // One step actor serves both steps of the turn, and one batch actor every batch.
    expect(find('turn/step')).toHaveLength(1);
    expect(find('turn/step/batch')).toHaveLength(1);
    expect(step).toMatchObject({ src: 'step', parent: turn!.actor });
    expect(batch).toMatchObject({ src: 'toolBatch', parent: step!.actor });
    expect(call).toMatchObject({ src: 'toolCall', parent: batch!.actor });
    // Every actor is announced before its first state change.
    const announced = new Set<string>();
    const unannounced: string[] = [];
    for (const m of messages) {
      if (m.kind === 'actor') announced.add(m.actor);
      if (m.kind === 'state' && !announced.has(m.actor)) unannounced.push(m.actor);
    }
    expect(unannounced).toEqual([]);

    const states = ofAgent(messages, 'state') as StateMessage[];
    const statesOf = (actor: ActorMessage) =>
      states.filter((m) => m.actor === actor.actor).map((m) => `${stateName(m.value)} ${m.status}`);
    expect(statesOf(root!)).toEqual([
      // No MCP servers of its own: the servers stage is not entered.
      'creating.session active',
      'creating.tools active',
      'creating.publish active',
      'ready.idle active',
      'ready.running active',
      'ready.idle active',
    ]);
    expect(statesOf(turn!)).toEqual([
      'created active',
      'starting active',
      // Before each step, the first included, the turn decides (whether to compact first, or to end).
      'deciding active',
      'preStep.choosing active',
      // No hook, no MCP servers, no environment block, no mode change: no pre-step work to wait for.
      'stepping active',
      'deciding active',
      'preStep.choosing active',
      'stepping active',
      'deciding active',
      'ending active',
      'done done',
    ]);
    // Every microstep is shown, transient states included; the actors stop with their turn.
    const oneStep = ['idle active', 'preparing active', 'requesting active'];
    expect(statesOf(step!)).toEqual([
      ...oneStep,
      'executingTools active',
      'done active',
      ...oneStep,
      'done active',
      'idle active',
      'idle stopped',
    ]);
    expect(statesOf(batch!)).toEqual([
      'idle active',
      'checking active',
      'running active',
      'done active',
      'idle active',
      'idle stopped',
    ]);
    expect(statesOf(call!)).toEqual(['· active', '· stopped']);

    const logged = ofAgent(messages, 'log').map((m) => (m.kind === 'log' ? m.event.seq : -1));
    expect(logged).toEqual(agent.log().map((event) => event.seq));
    const deltas = ofAgent(messages, 'delta') as Extract<InspectorMessage, { kind: 'delta' }>[];
    const textByStep = new Map<number, string>();
    for (const d of deltas) textByStep.set(d.step, (textByStep.get(d.step) ?? '') + d.text);
    expect([...textByStep]).toEqual([
      [1, 'Hello world'],
      [2, 'Done.'],
    ]);
    // The streamed text comes before the message that logs it.
    const firstDelta = messages.findIndex((m) => m.kind === 'delta');
    const firstAssistant = messages.findIndex(
      (m) => m.kind === 'log' && m.event.type === 'assistant.message',
    );
    expect(firstDelta).toBeLessThan(firstAssistant);
    // Inspection never carries a context or an actor ref: ids, a state value and an event type only.
    const place = ['actor', 'agentId', 'kind', 'parent', 'path', 'src'];
    const keysOf = {
      actor: place,
      state: [...place, 'event', 'status', 'value'],
      event: [...place, 'source', 'type'],
    };
    for (const m of messages) {
      if (m.kind !== 'actor' && m.kind !== 'state' && m.kind !== 'event') continue;
      expect(Object.keys(m).sort()).toEqual(keysOf[m.kind].sort());
    }
  });

  it('shows a held tool call as running in /api/agents, then done', async () => {
    const s = await setup();
    let held: AgentsPayload | undefined;
    await heldTurn(s, async () => {
      held = (await getJson<AgentsPayload>(s.inspector.url, '/api/agents')).body;
    });
    expect(held?.source).toBe('live');
    const [view] = held!.agents;
    expect(view).toMatchObject({ id: 'a1', state: 'ready.running', live: true });
    expect(view!.turns).toEqual([
      {
        turn: 1,
        state: 'running',
        steps: [
          {
            step: 1,
            state: 'executing_tools',
            attempts: 0,
            calls: [{ callId: 'c1', name: 'hold', input: { value: 'x' }, state: 'running' }],
          },
        ],
      },
    ]);
    const leaf = (id: string, value: unknown, children: unknown[] = []) => ({
      id,
      value,
      status: 'active',
      children,
    });
    expect(view!.tree).toEqual({
      ...leaf('agent', { ready: 'running' }, [
        leaf('turn', 'stepping', [
          leaf('step', 'executingTools', [
            leaf('model', null),
            leaf('batch', 'running', [leaf('check', null), leaf('call:c1', null)]),
          ]),
        ]),
      ]),
      contextUsage: { usedTokens: 0, contextWindow: 32_000 },
    });
    expect(view!.recent.map((event) => event.type).slice(-3)).toEqual([
      'tool.call',
      'approval.decided',
      'tool.started',
    ]);

    const after = (await getJson<AgentsPayload>(s.inspector.url, '/api/agents')).body;
    const [done] = after.agents;
    expect(done!.state).toBe('ready.idle');
    expect(done!.turns[0]).toMatchObject({ state: 'ended', reason: 'completed' });
    expect(done!.turns[0]!.steps.map((step) => step.state)).toEqual(['done', 'done']);
    expect(done!.turns[0]!.steps[0]!.calls).toEqual([
      { callId: 'c1', name: 'hold', input: { value: 'x' }, state: 'done', outcome: 'ok' },
    ]);
    expect(done!.tree).toEqual({
      ...{ id: 'agent', value: { ready: 'idle' }, status: 'active', children: [] },
      contextUsage: { usedTokens: 1, contextWindow: 32_000 },
    });
  });
});

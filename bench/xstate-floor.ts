// The cheapest XState version of agentchart's per-step actor traffic: a turn machine with a long-lived
// step machine, which has a long-lived model actor and tool batch, which has a long-lived check actor
// and spawns one actor per tool call. The same seven machine events per step, and nothing else: no log,
// no tools, no projection, no permissions. What this costs per step is the floor XState sets for the
// design, measured in the same run as the real runtime.
import { assign, createActor, enqueueActions, fromCallback, sendTo, setup } from 'xstate';

type Call = { id: string };

/** Answers `model.request` on the next microtask: `stepsPerTurn - 1` answers with one call, then a final one. */
function modelActor(stepsPerTurn: number) {
  return fromCallback<{ type: 'model.request'; step: number }>(({ sendBack, receive }) => {
    receive((event) => {
      const calls = event.step < stepsPerTurn ? [{ id: `c${event.step}` }] : [];
      queueMicrotask(() => sendBack({ type: 'model.done', calls }));
    });
  });
}

const checkActor = fromCallback<{ type: 'check'; calls: Call[] }>(({ sendBack, receive }) => {
  receive((event) => sendBack({ type: 'batch.checked', calls: event.calls }));
});

const toolCallActor = fromCallback<{ type: 'noop' }, Call>(({ sendBack, input }) => {
  Promise.resolve().then(() => sendBack({ type: 'tool.settled', id: input.id }));
});

const batchMachine = setup({
  types: {} as {
    context: { open: number; calls: Call[] };
    events: { type: string; calls?: Call[]; id?: string };
  },
  actors: { check: checkActor, toolCall: toolCallActor },
}).createMachine({
  context: { open: 0, calls: [] },
  entry: enqueueActions(({ enqueue }) => enqueue.spawnChild('check', { id: 'check' })),
  initial: 'idle',
  states: {
    idle: {
      on: { 'batch.begin': { target: 'checking', actions: assign({ calls: ({ event }) => event.calls! }) } },
    },
    checking: {
      entry: sendTo('check', ({ context }) => ({ type: 'check', calls: context.calls })),
      on: {
        'batch.checked': {
          target: 'running',
          actions: enqueueActions(({ context, enqueue }) => {
            for (const call of context.calls)
              enqueue.spawnChild('toolCall', { id: `call:${call.id}`, input: call });
            enqueue.assign({ open: context.calls.length });
          }),
        },
      },
    },
    running: {
      always: { guard: ({ context }) => context.open === 0, target: 'done' },
      on: {
        'tool.settled': {
          actions: [
            enqueueActions(({ event, enqueue }) => enqueue.stopChild(`call:${event.id}`)),
            assign({ open: ({ context }) => context.open - 1 }),
          ],
        },
      },
    },
    done: { entry: sendTo(({ self }) => self._parent!, { type: 'batch.done' }), always: 'idle' },
  },
});

function stepMachine(stepsPerTurn: number) {
  return setup({
    types: {} as {
      context: { step: number; calls: Call[] };
      events: { type: string; step?: number; calls?: Call[] };
    },
    actors: { model: modelActor(stepsPerTurn), batch: batchMachine },
  }).createMachine({
    context: { step: 0, calls: [] },
    entry: enqueueActions(({ enqueue }) => {
      enqueue.spawnChild('model', { id: 'model' });
      enqueue.spawnChild('batch', { id: 'batch' });
    }),
    initial: 'idle',
    states: {
      idle: {
        on: { 'step.begin': { target: 'preparing', actions: assign({ step: ({ event }) => event.step! }) } },
      },
      preparing: { always: 'requesting' },
      requesting: {
        entry: sendTo('model', ({ context }) => ({ type: 'model.request', step: context.step })),
        on: {
          'model.done': [
            {
              guard: ({ event }) => event.calls!.length > 0,
              target: 'executingTools',
              actions: assign({ calls: ({ event }) => event.calls! }),
            },
            { target: 'done', actions: assign({ calls: [] }) },
          ],
        },
      },
      executingTools: {
        entry: sendTo('batch', ({ context }) => ({ type: 'batch.begin', calls: context.calls })),
        on: { 'batch.done': 'done' },
      },
      done: {
        entry: sendTo(
          ({ self }) => self._parent!,
          ({ context }) => ({ type: 'step.done', more: context.calls.length > 0 }),
        ),
        always: 'idle',
      },
    },
  });
}

function turnMachine(stepsPerTurn: number) {
  return setup({
    types: {} as { context: { step: number; more: boolean }; events: { type: string; more?: boolean } },
    actors: { step: stepMachine(stepsPerTurn) },
  }).createMachine({
    context: { step: 0, more: true },
    entry: enqueueActions(({ enqueue }) => enqueue.spawnChild('step', { id: 'step' })),
    initial: 'stepping',
    states: {
      stepping: {
        entry: [
          assign({ step: ({ context }) => context.step + 1 }),
          sendTo('step', ({ context }) => ({ type: 'step.begin', step: context.step })),
        ],
        on: { 'step.done': { target: 'deciding', actions: assign({ more: ({ event }) => event.more! }) } },
      },
      deciding: {
        always: [{ guard: ({ context }) => context.more, target: 'stepping' }, { target: 'done' }],
      },
      done: { type: 'final' },
    },
  });
}

/** Microseconds per step of the bare actor traffic, one turn of `stepsPerTurn` steps per root actor. */
export async function xstateFloorPerStep(stepsPerTurn: number, turns: number): Promise<number> {
  const turn = turnMachine(stepsPerTurn);
  const runTurn = () =>
    new Promise<void>((resolve) => {
      const actor = createActor(turn);
      actor.subscribe({ complete: resolve });
      actor.start();
    });
  await runTurn(); // warms the JIT; not counted
  const start = performance.now();
  for (let t = 0; t < turns; t++) await runTurn();
  return ((performance.now() - start) * 1000) / (stepsPerTurn * turns);
}

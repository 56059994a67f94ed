// fromTask on its own: the one event a task reports to its parent, failures as results, and silence
// once the parent has stopped it.
import { describe, expect, it } from 'vitest';
import { assign, createActor, sendTo, setup } from 'xstate';
import { fromTask, reportingFailure } from '../../src/actors/from-task.ts';

type Reported = { type: 'task.reported'; text: string };

/** A parent that runs `task` with `input` and records every event it hears. */
function parentOf(task: ReturnType<typeof fromTask<string, unknown, Reported>>, input: string) {
  const machine = setup({
    types: {} as { context: { heard: string[] }; events: Reported | { type: 'stop' } },
    actors: { task },
  }).createMachine({
    context: { heard: [] },
    initial: 'running',
    states: {
      running: {
        invoke: { src: 'task', input },
        on: { stop: 'stopped' },
      },
      stopped: {},
    },
    on: {
      'task.reported': { actions: assign({ heard: ({ context, event }) => [...context.heard, event.text] }) },
    },
  });
  return createActor(machine).start();
}

const describeResult = fromTask<string, unknown, Reported>(
  (input) => {
    if (input === 'throw') throw new Error('thrown at once');
    if (input === 'reject') return Promise.reject(new Error('rejected'));
    if (input === 'quiet') return 'quiet';
    return `done ${input}`;
  },
  (result) => {
    if (result.ok && result.value === 'quiet') return undefined;
    const text = result.ok ? String(result.value) : `failed: ${(result.error as Error).message}`;
    return { type: 'task.reported', text };
  },
);

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('fromTask', () => {
  it('reports the value as the one event toEvent makes of it, after the spawn', async () => {
    const parent = parentOf(describeResult, 'work');
    expect(parent.getSnapshot().context.heard).toEqual([]);
    await settled();
    expect(parent.getSnapshot().context.heard).toEqual(['done work']);
  });

  it('turns a synchronous throw and a rejection alike into a failed result', async () => {
    const thrown = parentOf(describeResult, 'throw');
    const rejected = parentOf(describeResult, 'reject');
    await settled();
    expect(thrown.getSnapshot().context.heard).toEqual(['failed: thrown at once']);
    expect(rejected.getSnapshot().context.heard).toEqual(['failed: rejected']);
  });

  it('sends nothing when toEvent answers undefined', async () => {
    const parent = parentOf(describeResult, 'quiet');
    await settled();
    expect(parent.getSnapshot().context.heard).toEqual([]);
  });

  it('sends nothing once stopped, though the work itself still ran', async () => {
    const ran: string[] = [];
    const task = fromTask<string, unknown, Reported>(
      (input) => {
        ran.push(input);
        return input;
      },
      () => ({ type: 'task.reported', text: 'late' }),
    );
    const parent = parentOf(task, 'abandoned');
    parent.send({ type: 'stop' });
    await settled();
    expect(ran).toEqual(['abandoned']);
    expect(parent.getSnapshot().context.heard).toEqual([]);
  });
});

describe('fromTask with abortOn', () => {
  /** A task that waits until its signal aborts, then reports that it stopped waiting. */
  const waiting = fromTask(
    (_input: string, signal: AbortSignal) =>
      new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped waiting'))),
    (result): Reported => ({ type: 'task.reported', text: result.ok ? result.value : 'failed' }),
    { abortOn: 'task.abort' },
  );
  const parent = (task = waiting) =>
    createActor(
      setup({
        types: {} as {
          context: { heard: string[] };
          events: Reported | { type: 'abort' } | { type: 'stop' };
        },
        actors: { waiting: task },
      }).createMachine({
        context: { heard: [] },
        initial: 'running',
        states: {
          running: {
            invoke: { id: 'task', src: 'waiting', input: 'x' },
            on: { abort: { actions: sendTo('task', { type: 'task.abort' }) }, stop: 'stopped' },
          },
          stopped: {},
        },
        on: {
          'task.reported': {
            actions: assign({ heard: ({ context, event }) => [...context.heard, event.text] }),
          },
        },
      }),
    ).start();

  it('aborts the signal on that event, and the task still answers', async () => {
    const actor = parent();
    await settled();
    expect(actor.getSnapshot().context.heard).toEqual([]);
    actor.send({ type: 'abort' });
    await settled();
    expect(actor.getSnapshot().context.heard).toEqual(['stopped waiting']);
  });

  it('aborts the signal when stopped, and then sends nothing', async () => {
    let signal: AbortSignal | undefined;
    const task = fromTask(
      (_input: string, given: AbortSignal) => {
        signal = given;
        return new Promise<string>(() => {});
      },
      (): Reported => ({ type: 'task.reported', text: 'never' }),
      { abortOn: 'task.abort' },
    );
    const stopped = parent(task);
    await settled();
    expect(signal?.aborted).toBe(false);
    stopped.send({ type: 'stop' });
    expect(signal?.aborted).toBe(true);
  });

  it('leaves the signal alone when stopped after it answered (nothing is left to stop)', async () => {
    let signal: AbortSignal | undefined;
    const task = fromTask(
      (_input: string, given: AbortSignal) => {
        signal = given;
        return 'done';
      },
      (): Reported => ({ type: 'task.reported', text: 'done' }),
      { abortOn: 'task.abort' },
    );
    const stopped = parent(task);
    await settled();
    expect(stopped.getSnapshot().context.heard).toEqual(['done']);
    stopped.send({ type: 'stop' });
    expect(signal?.aborted).toBe(false);
  });

  it('decided per input: a task told it has nothing to stop gets a signal that never aborts', async () => {
    const signals = new Map<string, AbortSignal>();
    const task = fromTask(
      (input: string, given: AbortSignal) => {
        signals.set(input, given);
        return new Promise<string>(() => {});
      },
      (): Reported => ({ type: 'task.reported', text: 'never' }),
      { abortOn: (input: string) => (input === 'abortable' ? ('task.abort' as const) : undefined) },
    );
    const parentWith = (input: string) =>
      createActor(
        setup({
          types: {} as { context: { heard: string[] }; events: Reported | { type: 'abort' } },
          actors: { task },
        }).createMachine({
          context: { heard: [] },
          invoke: { id: 'task', src: 'task', input },
          on: { abort: { actions: sendTo('task', { type: 'task.abort' }) } },
        }),
      ).start();
    const abortable = parentWith('abortable');
    const plain = parentWith('plain');
    await settled();
    abortable.send({ type: 'abort' });
    plain.send({ type: 'abort' });
    expect({
      abortable: signals.get('abortable')?.aborted,
      plain: signals.get('plain')?.aborted,
    }).toEqual({ abortable: true, plain: false });
  });

  it('without abortOn the signal never aborts, even when the task is stopped', async () => {
    let signal: AbortSignal | undefined;
    const task = fromTask<string, unknown, Reported>(
      (_input, given) => {
        signal = given;
        return new Promise(() => {});
      },
      () => undefined,
    );
    const stopped = parentOf(task, 'x');
    await settled();
    stopped.send({ type: 'stop' });
    expect(signal?.aborted).toBe(false);
  });
});

describe('reportingFailure', () => {
  it('tells onError about a throw or a rejection and resolves either way', async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push((error as Error).message);
    await reportingFailure(() => {
      throw new Error('sync');
    }, onError);
    await reportingFailure(() => Promise.reject(new Error('async')), onError);
    await reportingFailure(() => Promise.resolve(), onError);
    expect(errors).toEqual(['sync', 'async']);
  });
});

// How much of a short-lived child actor's garbage V8 moves to the old generation: a parent machine invokes
// a child, sends it `SENDS` events, stops it, again and again, and the old generation's growth per cycle is
// printed (bytes that only a full collection frees). Run it twice to see what allocation-site pretenuring
// does to XState's traffic, and so to agentchart's per-step cost (docs/what-it-costs.md, "How far one
// figure moves"):
//
//   node --expose-gc --import tsx bench/pretenuring.ts
//   node --expose-gc --no-allocation-site-pretenuring --import tsx bench/pretenuring.ts
import v8 from 'node:v8';
import { createActor, fromCallback, sendTo, setup } from 'xstate';

const sends = Number(process.env.SENDS ?? 50);
const cycles = Number(process.env.CYCLES ?? 3000);

const child = fromCallback<{ type: 'go' }>(({ receive }) => {
  receive(() => {});
});
const parent = setup({ actors: { child } }).createMachine({
  initial: 'idle',
  states: {
    idle: { on: { start: 'running' } },
    running: {
      invoke: { src: 'child', id: 'child' },
      on: { stop: 'idle', go: { actions: sendTo('child', { type: 'go' }) } },
    },
  },
});

const actor = createActor(parent).start();
const oldGeneration = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => space.space_name !== 'new_space')
    .reduce((sum, space) => sum + space.space_used_size, 0);

async function cycle(): Promise<void> {
  actor.send({ type: 'start' });
  for (let index = 0; index < sends; index++) actor.send({ type: 'go' });
  await Promise.resolve();
  actor.send({ type: 'stop' });
}

for (let index = 0; index < cycles; index++) await cycle();
(globalThis as { gc?: () => void }).gc?.();
let grown = 0;
let before = oldGeneration();
for (let index = 0; index < cycles; index++) {
  await cycle();
  const now = oldGeneration();
  // A major collection in between shrinks it: that cycle's growth is not counted.
  if (now >= before) grown += now - before;
  before = now;
}
console.log(
  `old generation grew ${(grown / cycles / 1024).toFixed(1)} KB per cycle (a child, ${sends} events, stopped)`,
);

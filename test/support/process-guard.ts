// Registered as a vitest setup file: fails any test during which an exception or a rejection escaped to
// the process. agentchart's rule is that no error ever escapes an actor or a server handler; vitest alone
// reports such an error once for the whole run, without saying which test let it out.
import { afterEach } from 'vitest';

type Escape = { kind: 'uncaughtException' | 'unhandledRejection'; error: unknown };

const key = Symbol.for('agentchart.test.escapes');
const holder = globalThis as { [key]?: Escape[] };

function escapes(): Escape[] {
  if (!holder[key]) {
    const list: Escape[] = [];
    holder[key] = list;
    // Registered once per worker process, however many test files it runs.
    process.on('uncaughtException', (error) => list.push({ kind: 'uncaughtException', error }));
    process.on('unhandledRejection', (error) => list.push({ kind: 'unhandledRejection', error }));
  }
  return holder[key];
}

const escaped = escapes();

afterEach(async () => {
  // An unhandled rejection is reported after the microtask queue drains: give it one macrotask.
  await new Promise((resolve) => setImmediate(resolve));
  if (escaped.length === 0) return;
  const found = escaped.splice(0);
  const lines = found.map(
    ({ kind, error }) => `${kind}: ${error instanceof Error ? error.stack : String(error)}`,
  );
  throw new Error(`an error escaped to the process during this test:\n${lines.join('\n')}`);
});

// One agent system with a live inspector on a free port, for the inspector tests: a gate provider and a
// held tool let a test look at the inspector while a turn is under way.
import { type InspectorServer, startInspector } from '../../src/inspector/server.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import { type GateProvider, type GateTool, gatedSystem, settle } from '../support/controllable.ts';
import { connectEvents, type SseReader } from './sse-reader.ts';

export type Setup = { system: AgentSystem; model: GateProvider; tool: GateTool; inspector: InspectorServer };
const open: { system?: AgentSystem; inspector?: InspectorServer; readers: SseReader[] } = { readers: [] };

/** Starts a system (model: a gate provider; one tool: `hold`, a gate tool) and its inspector. */
export async function setup(): Promise<Setup> {
  const { model, tool, system } = gatedSystem('hold', 'none', { permissionMode: 'bypass' });
  const inspector = await startInspector(system, { port: 0 });
  open.system = system;
  open.inspector = inspector;
  return { system, model, tool, inspector };
}

/** Connects to the event stream and waits for its first snapshot. */
export async function connect(url: string): Promise<SseReader> {
  const reader = await connectEvents(url);
  open.readers.push(reader);
  await reader.until((messages) => messages.some((m) => m.kind === 'snapshot'));
  return reader;
}

/** Closes what the last test opened: its readers, its inspector, its system (for `afterEach`). */
export async function closeOpened(): Promise<void> {
  for (const reader of open.readers.splice(0)) reader.close();
  await open.inspector?.close();
  await open.system?.dispose();
  open.inspector = undefined;
  open.system = undefined;
}

/** Drives one turn: the model streams text and asks for one `hold` call, then answers "Done.". */
export async function heldTurn(
  { system, model, tool }: Setup,
  whileHeld: () => Promise<void> = async () => {},
) {
  const agent = await system.createAgent({ id: 'a1' });
  const run = agent.run('hi');
  const first = await model.request(0);
  first.delta('Hello ').delta('world').toolCall('c1', 'hold', { value: 'x' }).done('tool_use');
  while (!tool.running.has('c1')) await settle();
  await whileHeld();
  tool.finish('c1');
  (await model.request(1)).answer('Done.');
  const result = await run;
  return { agent, result };
}

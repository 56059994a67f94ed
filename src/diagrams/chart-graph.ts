// The statecharts as plain graphs for the inspector page to lay out and draw: the same walk over the
// machine definitions that writes diagrams/ (`chartEdges`), so the page and the Mermaid files never disagree.
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { agentMachine } from '../machines/agent.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import { chartEdges, descendants } from './mermaid.ts';

/** One state: `id` is its dotted path (`awaitingApproval.asking`), the form state values take. */
export type ChartNode = {
  id: string;
  key: string;
  parent: string | null;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** The dotted path of the initial child, for compound states. */
  initial?: string;
};

/** One arrow: `event` is the machine's event type (`''` for an eventless one), `label` adds the guard. */
export type ChartEdge = { from: string; to: string; label: string; event: string };

/** A whole chart; `initial` is the top-level initial state. */
export type ChartGraph = { machine: string; initial?: string; nodes: ChartNode[]; edges: ChartEdge[] };

const pathOf = (node: AnyStateNode): string => node.path.join('.');

/** The graph of one machine, in definition order (the same machine always gives the same graph). */
export function chartGraph(machine: AnyStateMachine): ChartGraph {
  const nodes = descendants(machine.root).map((node): ChartNode => {
    const parent = node.parent && node.parent !== machine.root ? pathOf(node.parent) : null;
    const initial = node.type === 'compound' ? node.initial?.target[0] : undefined;
    return {
      id: pathOf(node),
      key: node.key,
      parent,
      type: node.type,
      ...(initial ? { initial: pathOf(initial) } : {}),
    };
  });
  const edges = chartEdges(machine).map((edge) => ({
    from: pathOf(edge.from),
    to: pathOf(edge.to),
    label: edge.label,
    event: edge.event,
  }));
  const initial = machine.root.initial?.target[0];
  return { machine: machine.id, ...(initial ? { initial: pathOf(initial) } : {}), nodes, edges };
}

/**
 * Each tool call runs as a callback actor with no chart of its own; what it goes through is the call
 * state the log records (`CallState` in `session/log-position.ts`), drawn here with the log events that
 * move it. It is marked as such on the page.
 */
export const toolCallGraph: ChartGraph = {
  machine: 'toolCall (from the log)',
  initial: 'pending',
  nodes: ['pending', 'awaiting_approval', 'running', 'done'].map((id) => ({
    id,
    key: id,
    parent: null,
    type: id === 'done' ? 'final' : 'atomic',
  })),
  edges: [
    { from: 'pending', to: 'awaiting_approval', label: 'approval.asked', event: 'approval.asked' },
    { from: 'awaiting_approval', to: 'pending', label: 'approval.decided', event: 'approval.decided' },
    { from: 'pending', to: 'running', label: 'tool.started', event: 'tool.started' },
    { from: 'running', to: 'done', label: 'tool.result', event: 'tool.result' },
    { from: 'pending', to: 'done', label: 'tool.result (not run)', event: 'tool.result' },
    { from: 'awaiting_approval', to: 'done', label: 'tool.result (denied)', event: 'tool.result' },
  ],
};

/** The charts the inspector draws, keyed by the id their actors are spawned under (`batch`: the tool batch). */
export function inspectorCharts(): Record<string, ChartGraph> {
  return {
    agent: chartGraph(agentMachine),
    turn: chartGraph(turnMachine),
    step: chartGraph(stepMachine),
    batch: chartGraph(toolBatchMachine),
    call: toolCallGraph,
  };
}

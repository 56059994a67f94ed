// The page's chart-layout.js on its own: which states a chart shows for a set of active states (the
// regions that are not active collapsed) and how arrows between the same two boxes merge into one label.
import { describe, expect, it } from 'vitest';
import { inspectorCharts } from '../../src/diagrams/chart-graph.ts';
import { chartLayoutScript } from '../../src/inspector/page/chart-layout.ts';

type Arrow = { from: string; to: string; labels: string[]; events: string[]; members: number[] };
type Part = {
  nodes: { id: string }[];
  open: Set<string>;
  collapsed: Set<string>;
  hidden: Map<string, number>;
  arrows: Arrow[];
};
const page = (await import(
  `data:text/javascript;base64,${Buffer.from(chartLayoutScript).toString('base64')}`
)) as {
  chartPart: (chart: unknown, active: Set<string>, expanded: boolean) => Part;
  labelLines: (labels: string[]) => string[];
};
const charts = inspectorCharts();

describe('chart-layout.js', () => {
  it('collapses the agent chart around ready.running to its top states, the arrows merged', () => {
    const part = page.chartPart(charts.agent, new Set(['ready', 'ready.running']), false);
    expect(part.nodes.map((node) => node.id)).toEqual([
      'creating',
      'rollingBack',
      'ready',
      'ready.idle',
      'ready.running',
      'disposing',
      'failed',
      'disposed',
    ]);
    expect([...part.open]).toEqual(['ready']);
    expect([...part.collapsed].sort()).toEqual(['creating', 'disposing']);
    expect(Object.fromEntries(part.hidden)).toEqual({ creating: 5, disposing: 8 });
    expect(part.arrows.map((arrow) => `${arrow.from} → ${arrow.to}: ${arrow.labels.join(' / ')}`)).toEqual([
      'creating → rollingBack: setup.error / setup.done [disposeRequested]',
      'creating → ready: setup.done',
      'rollingBack → rollingBack: undo.done',
      'rollingBack → failed: always [undoneAfterFailure]',
      'rollingBack → disposed: always [nothingToUndo]',
      'ready → disposing: agent.dispose',
      'ready.idle → ready.running: always [resuming] / always [hasWork]',
      'ready.running → ready.idle: done(turn)',
      'disposing → disposed: revoke.done',
    ]);
    // Every edge of the chart is drawn by one arrow, or hidden inside a collapsed box.
    const drawn = part.arrows.flatMap((arrow) => arrow.members);
    expect(new Set(drawn).size).toBe(drawn.length);
    expect(drawn.length).toBe(
      charts.agent!.edges.length -
        charts.agent!.edges.filter(
          (edge) => /^(creating|disposing)\./.test(edge.from) && /^(creating|disposing)\./.test(edge.to),
        ).length,
    );
  });

  it('opens every region when expanded, and keeps all of a flat chart', () => {
    const all = page.chartPart(charts.agent, new Set(['ready', 'ready.running']), true);
    expect(all.nodes.length).toBe(charts.agent!.nodes.length);
    expect([...all.open].sort()).toEqual(['creating', 'disposing', 'ready']);
    const step = page.chartPart(charts.step, new Set(['requesting']), false);
    expect(step.nodes.length).toBe(charts.step!.nodes.length);
    expect(step.arrows.flatMap((arrow) => arrow.members).sort((a, b) => a - b)).toEqual(
      charts.step!.edges.map((_, index) => index),
    );
  });

  it('writes one line per event, its guards listed, a long guard on a line of its own', () => {
    expect(
      page.labelLines([
        'model.done',
        'compaction.done',
        'compaction.skipped [compactingForOverflow]',
        'compaction.skipped',
        'model.error [summaryOverflowed]',
        'model.error [overflowedAgain]',
        'step.cancel',
      ]),
    ).toEqual([
      'model.done',
      'compaction.done',
      'compaction.skipped when',
      '  [compactingForOverflow]',
      '  otherwise',
      'model.error when',
      '  [summaryOverflowed]',
      '  [overflowedAgain]',
      'step.cancel',
    ]);
    expect(
      page.labelLines(['always [ok]', 'children.released [sessionEndHooksDue]', 'hook.sessionEnd']),
    ).toEqual(['always [ok]', 'children.released', '  [sessionEndHooksDue]', 'hook.sessionEnd']);
  });
});

// What the chart tests measure in the page: where each chart's innermost active state is drawn against
// the pane that shows it, the order of the charts, and the boxes of every label and state.
import type { Page } from 'playwright-core';

/** The charts in the order the page draws them, by machine key. */
export function chartOrder(page: Page): Promise<string[]> {
  return page
    .locator('.chart')
    .evaluateAll((charts) => charts.map((chart) => (chart as HTMLElement).dataset.machine!));
}

/**
 * Each innermost active state drawn outside its chart's visible pane, as `machine:state`; the first
 * chart's must also be inside the page's scrolling content, visible without scrolling.
 */
export function activeOutOfView(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const inside = (inner: DOMRect, outer: DOMRect) =>
      inner.left >= outer.left - 1 &&
      inner.top >= outer.top - 1 &&
      inner.right <= outer.right + 1 &&
      inner.bottom <= outer.bottom + 1;
    const content = document.getElementById('content')!.getBoundingClientRect();
    const out: string[] = [];
    document.querySelectorAll('.chart').forEach((chart, index) => {
      const pane = chart.querySelector('svg.chart-svg')!.getBoundingClientRect();
      for (const state of Array.from(chart.querySelectorAll('.state.active:not(.compound)'))) {
        const rect = state.querySelector('rect')!.getBoundingClientRect();
        const name = `${(chart as HTMLElement).dataset.machine}:${(state as SVGElement).dataset.state}`;
        if (!inside(rect, pane)) out.push(`${name} outside its chart`);
        if (index === 0 && !inside(rect, content)) out.push(`${name} outside the pane`);
      }
    });
    return out;
  });
}

/**
 * The pairs of one chart's drawn texts and boxes that overlap, in the chart's own units: an arrow's label
 * against every other label, every state box and every compound's name.
 */
export function labelOverlaps(page: Page, machine: string): Promise<string[]> {
  return page.locator(`.chart[data-machine="${machine}"] svg.chart-svg`).evaluate((svg) => {
    type Box = { name: string; x: number; y: number; width: number; height: number };
    const box = (name: string, node: SVGGraphicsElement): Box => {
      const b = node.getBBox();
      return { name, x: b.x, y: b.y, width: b.width, height: b.height };
    };
    const labels = Array.from(svg.querySelectorAll('.edge text')).map((node) =>
      box(`label "${node.textContent}"`, node as SVGGraphicsElement),
    );
    const states = Array.from(svg.querySelectorAll('.state:not(.compound) rect')).map((node) =>
      box(`state ${(node.parentNode as SVGElement).dataset.state}`, node as SVGGraphicsElement),
    );
    const titles = Array.from(svg.querySelectorAll('.state.compound text.title')).map((node) =>
      box(`title ${node.textContent}`, node as SVGGraphicsElement),
    );
    const overlap = (a: Box, b: Box) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    const found: string[] = [];
    labels.forEach((label, i) => {
      for (const other of [...labels.slice(i + 1), ...states, ...titles])
        if (overlap(label, other)) found.push(`${label.name} × ${other.name}`);
    });
    return found;
  });
}

/** True when every state of one chart is drawn inside its pane: the whole chart is in view. */
export function allStatesInView(page: Page, machine: string): Promise<boolean> {
  return page.locator(`.chart[data-machine="${machine}"] svg.chart-svg`).evaluate((svg) => {
    const pane = svg.getBoundingClientRect();
    return Array.from(svg.querySelectorAll('.state rect')).every((node) => {
      const rect = node.getBoundingClientRect();
      return (
        rect.left >= pane.left - 1 &&
        rect.right <= pane.right + 1 &&
        rect.top >= pane.top - 1 &&
        rect.bottom <= pane.bottom + 1
      );
    });
  });
}

/** The arrows of one chart whose line crosses a label's box (a loop, drawn as a curve, is left out). */
export function linesThroughLabels(page: Page, machine: string): Promise<string[]> {
  return page.locator(`.chart[data-machine="${machine}"] svg.chart-svg`).evaluate((svg) => {
    type Point = { x: number; y: number };
    const edges = Array.from(svg.querySelectorAll('.edge')).map((edge) => {
      const d = edge.querySelector('path')!.getAttribute('d')!;
      const points = d.includes('C')
        ? []
        : Array.from(d.matchAll(/[ML]([-\d.]+),([-\d.]+)/g), (m) => ({ x: Number(m[1]), y: Number(m[2]) }));
      const text = edge.querySelector('text') as SVGGraphicsElement;
      return { name: text.textContent!, points, box: text.getBBox() };
    });
    // Liang–Barsky: does the segment a–b enter the box shrunk by a pixel?
    const crosses = (a: Point, b: Point, box: DOMRect) => {
      const [x0, x1, y0, y1] = [box.x + 1, box.x + box.width - 1, box.y + 1, box.y + box.height - 1];
      let low = 0;
      let high = 1;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      for (const [p, q] of [
        [-dx, a.x - x0],
        [dx, x1 - a.x],
        [-dy, a.y - y0],
        [dy, y1 - a.y],
      ] as const) {
        if (p === 0) {
          if (q < 0) return false;
          continue;
        }
        const t = q / p;
        if (p < 0) low = Math.max(low, t);
        else high = Math.min(high, t);
        if (low > high) return false;
      }
      return true;
    };
    const found: string[] = [];
    for (const line of edges)
      for (const label of edges) {
        if (line.points.some((point, i) => i > 0 && crosses(line.points[i - 1]!, point, label.box)))
          found.push(`line of "${line.name}" × label "${label.name}"`);
      }
    return found;
  });
}

/**
 * chart-layout.js of the inspector page: what of a statechart is drawn and where. Compound states that
 * are neither active nor hold an active state are collapsed to one box (their children hidden), arrows
 * between the same two boxes are merged into one arrow whose label lists every event and guard, and dagre
 * lays the rest out (top to bottom or left to right, as asked) with each label as a box of its own,
 * measured in the page's font, so no label sits on another or on a state. Layouts are cached per chart,
 * collapse set and direction.
 */
export const chartLayoutScript = String.raw`
const NS = 'http://www.w3.org/2000/svg';
/** Label lines longer than this many characters put their guard on a line of its own. */
const LINE_CHARS = 14;
/** The height of one label line at the 10px label font, and the box's padding around the text. */
export const LINE_HEIGHT = 12;
export const LABEL_PAD = 3;
/** The room a self-transition's loop takes beside its state, before its label. */
export const LOOP_ROOM = 18;
const layouts = new Map();
const widths = new Map();
let ruler;

/** The width of text in the chart's own font (cls: 'edge', 'state' or 'title'), measured once per text. */
export function measure(text, cls) {
  const key = cls + '\u0000' + text;
  if (widths.has(key)) return widths.get(key);
  if (!ruler) {
    ruler = document.createElementNS(NS, 'svg');
    ruler.setAttribute('class', 'chart-svg chart-ruler');
    ruler.setAttribute('aria-hidden', 'true');
    document.body.appendChild(ruler);
  }
  const g = document.createElementNS(NS, 'g');
  g.setAttribute('class', cls === 'edge' ? 'edge' : 'state ' + (cls === 'title' ? 'compound' : 'leaf active'));
  const node = document.createElementNS(NS, 'text');
  node.textContent = text;
  if (cls === 'title') node.setAttribute('class', 'title');
  g.appendChild(node); ruler.appendChild(g);
  const width = node.getComputedTextLength();
  ruler.removeChild(g);
  widths.set(key, width);
  return width;
}

/** One arrow's label as lines: one event per line with its guard, an event with several guards listed. */
export function labelLines(labels) {
  const byEvent = new Map();
  for (const label of labels) {
    const match = /^(.*?)(?: \[(.*)\])?$/.exec(label);
    if (!byEvent.has(match[1])) byEvent.set(match[1], []);
    byEvent.get(match[1]).push(match[2]);
  }
  const lines = [];
  for (const [event, guards] of byEvent) {
    if (guards.length === 1) {
      const one = guards[0] ? event + ' [' + guards[0] + ']' : event;
      if (!guards[0] || one.length <= LINE_CHARS) lines.push(one); else lines.push(event, '  [' + guards[0] + ']');
    } else {
      lines.push(event + ' when');
      for (const guard of guards) lines.push('  ' + (guard ? '[' + guard + ']' : 'otherwise'));
    }
  }
  return lines;
}

/**
 * The part of a chart to draw for these active state ids: the states shown (a collapsed compound as one
 * box), the compounds drawn open, and the arrows merged per pair of boxes (members: the chart's edge
 * indexes each arrow stands for, so the one just taken can flash).
 */
export function chartPart(chart, active, expanded) {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const compound = new Set(chart.nodes.filter((n) => n.parent).map((n) => n.parent));
  const collapsed = new Set(expanded ? [] : [...compound].filter((id) => !active.has(id)));
  const shownAs = (id) => {
    let shown = id;
    for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined) if (collapsed.has(n.id)) shown = n.id;
    return shown;
  };
  const nodes = chart.nodes.filter((n) => shownAs(n.id) === n.id);
  const open = new Set(nodes.filter((n) => compound.has(n.id) && !collapsed.has(n.id)).map((n) => n.id));
  const arrows = new Map();
  chart.edges.forEach((e, i) => {
    const from = shownAs(e.from); const to = shownAs(e.to);
    // An arrow between two states hidden in the same collapsed box is inside it: not drawn.
    if (from === to && (from !== e.from || to !== e.to)) return;
    const key = from + '\u0000' + to;
    if (!arrows.has(key)) arrows.set(key, { from, to, labels: [], events: [], members: [] });
    const arrow = arrows.get(key);
    arrow.members.push(i);
    if (!arrow.labels.includes(e.label)) arrow.labels.push(e.label);
    if (!arrow.events.includes(e.event)) arrow.events.push(e.event);
  });
  const hidden = new Map();
  for (const n of chart.nodes) if (shownAs(n.id) !== n.id) hidden.set(shownAs(n.id), (hidden.get(shownAs(n.id)) || 0) + 1);
  return { nodes, open, collapsed, hidden, arrows: [...arrows.values()], signature: [...collapsed].sort().join('|') };
}

const anchor = (id) => id + '#';
const STATE_HEIGHT = 26;

/** Lays out one chart for one collapse set (cached): the dagre graph plus each arrow's label lines. */
export function layoutChart(name, chart, active, expanded, rankdir) {
  const part = chartPart(chart, active, expanded);
  const cacheKey = name + '\u0001' + part.signature + '\u0001' + rankdir;
  if (layouts.has(cacheKey)) return layouts.get(cacheKey);
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir, nodesep: 12, ranksep: 24, edgesep: 6, marginx: 10, marginy: 10 });
  const shown = new Set(part.nodes.map((n) => n.id));
  for (const n of part.nodes) {
    if (part.open.has(n.id)) {
      // The compound's name is a node inside it: dagre gives it room, and arrows into the compound meet it.
      g.setNode(n.id, {});
      g.setNode(anchor(n.id), { width: measure(n.key, 'title') + 12, height: 18 });
      g.setParent(anchor(n.id), n.id);
    } else {
      const text = part.collapsed.has(n.id) ? n.key + ' ▸' : n.key;
      g.setNode(n.id, { width: measure(text, 'state') + 18, height: STATE_HEIGHT });
    }
    if (n.parent && shown.has(n.parent)) g.setParent(n.id, n.parent);
  }
  const end = (id) => (part.open.has(id) ? anchor(id) : id);
  const arrows = part.arrows.map((arrow, i) => {
    const lines = labelLines(arrow.labels);
    const textWidth = Math.max(...lines.map((line) => measure(line, 'edge')));
    const loop = arrow.from === arrow.to;
    // dagre puts a loop's label beside its state across the ranks: the loop's room goes on that side.
    const width = textWidth + 2 * LABEL_PAD + (loop && rankdir === 'TB' ? LOOP_ROOM : 0);
    const height = lines.length * LINE_HEIGHT + 2 * LABEL_PAD + (loop && rankdir === 'LR' ? LOOP_ROOM : 0);
    g.setEdge(end(arrow.from), end(arrow.to), { width, height, labelpos: loop ? 'c' : 'r', labeloffset: 4 }, 'e' + i);
    return { ...arrow, lines, loop, id: { v: end(arrow.from), w: end(arrow.to), name: 'e' + i } };
  });
  dagre.layout(g);
  const result = { width: g.graph().width, height: g.graph().height, rankdir, g, part, arrows, anchor, bands: rankBands(g, rankdir) };
  layouts.set(cacheKey, result);
  return result;
}

/**
 * Half the depth of each rank's band, keyed by the rank's centre (y top to bottom, x left to right): every
 * state and label of a rank lies inside its band, so a line that crosses bands straight meets none of them.
 */
function rankBands(g, rankdir) {
  const across = rankdir === 'TB' ? 'y' : 'x'; const depth = rankdir === 'TB' ? 'height' : 'width';
  const bands = new Map();
  const widen = (box) => { const key = Math.round(box[across]); bands.set(key, Math.max(bands.get(key) || 0, box[depth] / 2)); };
  for (const id of g.nodes()) if (!g.children(id).length) widen(g.node(id));
  for (const e of g.edges()) { const edge = g.edge(e); if (edge.x !== undefined && e.v !== e.w) widen(edge); }
  return bands;
}

/** The box of a drawn state in layout units: a state's rectangle, a collapsed compound's, an open compound's. */
export function stateBox(layout, id) {
  const p = layout.g.node(id);
  if (!p) return undefined;
  return { x: p.x - p.width / 2, y: p.y - p.height / 2, width: p.width, height: p.height };
}
`;

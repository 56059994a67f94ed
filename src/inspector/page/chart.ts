/**
 * chart.js of the inspector page: each statechart drawn as SVG from its layout (chart-layout.js) in the
 * view its pane shows (chart-view.js) — nested states as boxes, transitions labelled with event and guard,
 * the active states lit, the transition just taken flashing, the events the active states accept listed,
 * and a click on a state showing its machine's context.
 */
export const chartScript = String.raw`
import { S, add, el, json, redraw } from './core.js';
import { LABEL_PAD, LINE_HEIGHT, LOOP_ROOM, layoutChart, stateBox } from './chart-layout.js';
import { attachView, frame, justDragged, room, viewButtons, viewOf } from './chart-view.js';
const CHARTS = JSON.parse(document.getElementById('charts').textContent);
const NS = 'http://www.w3.org/2000/svg';
const FLASH_MS = 1600;
const DOUBLE_CLICK_MS = 500;
// A cubic curve with both control points at distance d reaches three quarters of d.
const BEZIER_REACH = 4 / 3;

function svg(tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The dotted ids of every active state of a state value ({ a: 'b' } → a, a.b). */
export function activeIds(value, prefix = '') {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [prefix + String(value)];
  return Object.entries(value).flatMap(([k, v]) => [prefix + k, ...activeIds(v, prefix + k + '.')]);
}

/** Remembers each machine's last active states and the arrows of its last change, to flash them. */
function taken(key, chart, active) {
  const now = performance.now();
  const before = S.machines.get(key);
  const sig = active.join('|');
  if (!before) { S.machines.set(key, { sig, active, edges: new Set(), at: 0 }); return new Set(); }
  if (before.sig !== sig) {
    const was = new Set(before.active); const is = new Set(active);
    const edges = new Set();
    chart.edges.forEach((e, i) => { if (was.has(e.from) && is.has(e.to) && (!is.has(e.from) || e.from === e.to)) edges.add(i); });
    S.machines.set(key, { sig, active, edges, at: now });
    setTimeout(redraw, FLASH_MS + 50);
  }
  const entry = S.machines.get(key);
  return now - entry.at < FLASH_MS ? entry.edges : new Set();
}

/** Where a loop's label sits from its state: dagre puts it beside the state across the ranks. */
function loopSide(box, edge, rankdir) {
  if (rankdir === 'TB') return edge.x > box.x + box.width / 2 ? 'right' : 'left';
  return edge.y > box.y + box.height / 2 ? 'below' : 'above';
}
/** An arrow's label: one line of text per event and guard, inside the box dagre made room for. */
function label(arrow, edge, side) {
  const x = edge.x - edge.width / 2 + (side === 'right' ? LOOP_ROOM : 0) + LABEL_PAD;
  const top = edge.y - edge.height / 2 + (side === 'below' ? LOOP_ROOM : 0) + LABEL_PAD;
  const text = svg('text', { x, y: top });
  arrow.lines.forEach((line, i) => text.appendChild(svg('tspan', { x, y: (top + (i + 0.8) * LINE_HEIGHT).toFixed(1) }, line)));
  return text;
}
/** A self-transition's loop: out of the state's side that faces its label, to the label's box, and back. */
function loopPath(box, edge, side) {
  const cx = box.x + box.width / 2; const cy = box.y + box.height / 2;
  if (side === 'right' || side === 'left') {
    const x = side === 'right' ? box.x + box.width : box.x;
    const reach = side === 'right' ? edge.x - edge.width / 2 + LOOP_ROOM - 4 : edge.x + edge.width / 2 - LOOP_ROOM + 4;
    const out = x + (reach - x) * BEZIER_REACH;
    return 'M' + x + ',' + (cy - 7) + ' C' + out + ',' + (cy - 16) + ' ' + out + ',' + (cy + 16) + ' ' + x + ',' + (cy + 7);
  }
  const y = side === 'below' ? box.y + box.height : box.y;
  const reach = side === 'below' ? edge.y - edge.height / 2 + LOOP_ROOM - 4 : edge.y + edge.height / 2 - LOOP_ROOM + 4;
  const out = y + (reach - y) * BEZIER_REACH;
  return 'M' + (cx - 10) + ',' + y + ' C' + (cx - 20) + ',' + out + ' ' + (cx + 20) + ',' + out + ' ' + (cx + 10) + ',' + y;
}
/**
 * An arrow's line: straight across each rank it passes (dagre gives one point there, and slanted lines
 * would cut the corners of the labels and states beside it), slanted only in the gaps between ranks. It
 * leaves its state and enters the next one through the side facing the way it goes.
 */
function edgePath(edge, L, arrow) {
  const across = L.rankdir === 'TB' ? 'y' : 'x'; const along = L.rankdir === 'TB' ? 'x' : 'y';
  const depth = L.rankdir === 'TB' ? 'height' : 'width'; const breadth = L.rankdir === 'TB' ? 'width' : 'height';
  const inner = edge.points.slice(1, -1);
  // The straight run through a rank centred at p, entered from the side of before.
  const through = (p, before) => {
    const half = L.bands.get(Math.round(p[across])) || 0;
    const sign = before[across] < p[across] ? 1 : -1;
    return half ? [{ ...p, [across]: p[across] - sign * half }, { ...p, [across]: p[across] + sign * half }] : [p];
  };
  // Where the line meets a state: on its side towards toward, at a point level with it where it can be.
  const meet = (node, toward) => {
    const sign = toward[across] > node[across] ? 1 : -1;
    const at = Math.min(node[along] + node[breadth] / 2 - 4, Math.max(node[along] - node[breadth] / 2 + 4, toward[along]));
    return { [along]: at, [across]: node[across] + sign * node[depth] / 2 };
  };
  const from = L.g.node(arrow.id.v); const to = L.g.node(arrow.id.w);
  if (!inner.length) return 'M' + edge.points.map((p) => p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' L');
  const start = meet(from, inner[0]); const end = meet(to, inner[inner.length - 1]);
  const points = [start, ...through({ ...start, [across]: from[across] }, { [across]: from[across] - (start[across] - from[across]) }).slice(1)];
  inner.forEach((p, j) => points.push(...through(p, j ? inner[j - 1] : start)));
  points.push(...through({ ...end, [across]: to[across] }, inner[inner.length - 1]).slice(0, 1), end);
  // A point on top of the one before adds a segment of no length, which turns an arrowhead any way.
  const kept = points.filter((p, j) => j === 0 || Math.hypot(p.x - points[j - 1].x, p.y - points[j - 1].y) > 0.5);
  return kept.map((p, j) => (j ? 'L' : 'M') + p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' ');
}
/** The chart laid out top to bottom or left to right, whichever is drawn larger in the pane. */
function bestLayout(name, chart, lit, expanded) {
  const { width, maxHeight } = room();
  const scale = (layout) => Math.min(1, width / layout.width, maxHeight / layout.height);
  const down = layoutChart(name, chart, lit, expanded, 'TB'); const across = layoutChart(name, chart, lit, expanded, 'LR');
  return scale(across) > scale(down) + 0.02 ? across : down;
}

/** The chart's SVG in the frame shown: open compounds first, then the arrows, then the states on top. */
function drawChart(L, { key, lit, flashing, view, context }, shown) {
  const root = svg('svg', { width: '100%', height: shown.height, viewBox: shown.viewBox, class: 'chart-svg', preserveAspectRatio: 'xMidYMid meet' });
  root.appendChild(svg('defs')).appendChild(add(svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }), svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#7a7f85' })));
  const state = (id, b, text, cls) => {
    const g = svg('g', { class: 'state ' + cls + (lit.has(id) ? ' active' : ''), 'data-state': id, tabindex: 0 });
    g.appendChild(svg('rect', { x: b.x, y: b.y, width: b.width, height: b.height, rx: 7 }));
    if (text !== null) g.appendChild(svg('text', { x: b.x + b.width / 2, y: b.y + b.height / 2 + 4, 'text-anchor': 'middle' }, text));
    g.onclick = (event) => {
      event.stopPropagation();
      if (justDragged()) return;
      // A second click on a collapsed box opens its chart's regions. Timed here, not by dblclick: a redraw
      // between the two clicks replaces the element, and a listener on the old one would not hear it.
      const now = performance.now();
      if (cls === 'collapsed' && S.picked && S.picked.key === key && S.picked.id === id && now - S.picked.at < DOUBLE_CLICK_MS) {
        view.expanded = true; view.scale = null;
      }
      S.picked = { key, id, context, at: now }; redraw();
    };
    return g;
  };
  const nodes = L.part.nodes;
  const depth = (n) => (n.parent ? 1 + depth(nodes.find((p) => p.id === n.parent) || {}) : 0);
  for (const n of nodes.filter((n) => L.part.open.has(n.id)).sort((a, b) => depth(a) - depth(b))) {
    const g = state(n.id, stateBox(L, n.id), null, 'compound');
    g.appendChild(svg('text', { x: L.g.node(L.anchor(n.id)).x, y: L.g.node(L.anchor(n.id)).y + 4, 'text-anchor': 'middle', class: 'title' }, n.key));
    root.appendChild(g);
  }
  L.arrows.forEach((arrow) => {
    const edge = L.g.edge(arrow.id);
    const side = arrow.loop ? loopSide(stateBox(L, arrow.id.v), edge, L.rankdir) : '';
    const d = arrow.loop ? loopPath(stateBox(L, arrow.id.v), edge, side) : edgePath(edge, L, arrow);
    const cls = 'edge' + (arrow.members.some((i) => flashing.has(i)) ? ' flash' : '') + (lit.has(arrow.from) ? ' possible' : '');
    root.appendChild(add(svg('g', { class: cls, 'data-event': arrow.events.join(' ') }), svg('path', { d, 'marker-end': 'url(#arrow)' }), label(arrow, edge, side)));
  });
  for (const n of nodes.filter((n) => !L.part.open.has(n.id))) {
    const folded = L.part.collapsed.has(n.id);
    const g = state(n.id, stateBox(L, n.id), folded ? n.key + ' ▸' : n.key, folded ? 'collapsed' : n.type === 'final' ? 'final' : 'leaf');
    if (folded) {
      g.appendChild(svg('title', {}, L.part.hidden.get(n.id) + ' states inside, not active (double-click or "all states" opens them)'));
    }
    root.appendChild(g);
  }
  return root;
}

/** One machine drawn: its chart, lit where it is now, with what it accepts and a click for its context. */
export function drawMachine(name, key, node, context) {
  const box = el('div', 'chart');
  box.dataset.machine = key;
  const active = activeIds(node.value);
  const lit = new Set(active);
  const chart = CHARTS[name];
  // Each agent's charts keep their own views: every agent has an 'agent/turn'.
  const viewKey = S.selected + '\u0000' + key;
  const view = viewOf(viewKey);
  const L = bestLayout(name, chart, lit, view.expanded);
  const flashing = S.travel === null ? taken(key, chart, active) : new Set();
  const innermost = active.filter((id) => !active.some((o) => o.startsWith(id + '.')));
  add(box, add(el('div', 'chart-head'), el('b', '', key), el('span', 'note', ' ' + chart.machine + ' · ' + (innermost.join(', ') || node.status)), viewButtons(viewKey, L.part.collapsed.size)));
  const focus = innermost.map((id) => stateBox(L, id)).find(Boolean);
  const shown = frame(viewKey, L, focus, innermost.join('|') + '\u0001' + L.part.signature + L.rankdir);
  const root = drawChart(L, { key, lit, flashing, view, context }, shown);
  attachView(root, viewKey);
  box.appendChild(add(el('div', 'chart-pane'), root));
  const accepts = [...new Set(chart.edges.filter((e) => lit.has(e.from)).map((e) => e.label))];
  add(box, el('div', 'accepts', accepts.length ? 'Accepts now: ' + accepts.join(' · ') : 'Accepts no event now (' + node.status + ').'));
  if (S.picked && S.picked.key === key) {
    const ctx = S.picked.context !== undefined ? S.picked.context : S.contexts ? S.contexts[contextPath(key)] : undefined;
    add(box, add(el('div', 'picked'), el('b', '', 'State ' + S.picked.id + (lit.has(S.picked.id) ? ' (active)' : ' (not active)') + ' — context of ' + key + (S.travel !== null ? ' at seq ' + S.travel : ' now')),
      el('pre', '', ctx !== undefined ? json(ctx) : contextMissing())));
  }
  return box;
}
/** Why a picked state shows no context: still loading, the request failed, or there is none. */
function contextMissing() {
  if (S.travel === null && S.contextsError) return 'The contexts could not be loaded: ' + S.contextsError;
  if (S.travel === null && !S.contexts) return 'Loading…';
  return 'No context for this machine' + (S.travel !== null ? ' at seq ' + S.travel : ' now') + '.';
}
/** machine key 'agent/turn/step' → the server's context path 'turn/step'. */
export function contextPath(key) { return key.split('/').slice(1).join('/'); }
`;

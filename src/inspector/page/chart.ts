/**
 * chart.js of the inspector page: each statechart laid out by dagre (served from node_modules) and drawn
 * as SVG — nested states as boxes, transitions labelled with event and guard, the active states lit, the
 * transition just taken flashing, the events the active states accept listed, and a click on a state
 * showing its machine's context.
 */
export const chartScript = String.raw`
import { S, add, el, json, redraw } from './core.js';
const CHARTS = JSON.parse(document.getElementById('charts').textContent);
const layouts = new Map();
const NS = 'http://www.w3.org/2000/svg';
const FLASH_MS = 1600;

function svg(tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}
const anchor = (id) => id + '#';

/** Lays one chart out once: compound states hold a small anchor dot that arrows to and from them use. */
function layout(name) {
  if (layouts.has(name)) return layouts.get(name);
  const chart = CHARTS[name];
  const compound = new Set(chart.nodes.filter((n) => chart.nodes.some((c) => c.parent === n.id)).map((n) => n.id));
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 46, edgesep: 8, marginx: 8, marginy: 8 });
  for (const n of chart.nodes) {
    if (compound.has(n.id)) {
      g.setNode(n.id, { label: n.key, clusterLabelPos: 'top' });
      g.setNode(anchor(n.id), { width: 10, height: 10 });
      g.setParent(anchor(n.id), n.id);
    } else g.setNode(n.id, { width: 16 + 7 * n.key.length, height: 26 });
    if (n.parent) g.setParent(n.id, n.parent);
  }
  const end = (id) => (compound.has(id) ? anchor(id) : id);
  chart.edges.forEach((e, i) => g.setEdge(end(e.from), end(e.to), { label: e.label, width: 5.6 * e.label.length, height: 12, labelpos: 'c' }, 'e' + i));
  dagre.layout(g);
  const result = { width: g.graph().width, height: g.graph().height, compound, g, chart };
  layouts.set(name, result);
  return result;
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

/** One machine drawn: its chart, lit where it is now, with what it accepts and a click for its context. */
export function drawMachine(name, key, node, context) {
  const box = el('div', 'chart');
  box.dataset.machine = key;
  const active = activeIds(node.value);
  const L = layout(name);
  const flashing = S.travel === null ? taken(key, L.chart, active) : new Set();
  add(box, add(el('div', 'chart-head'), el('b', '', key), el('span', 'note', ' ' + L.chart.machine + ' · ' + (active.filter((id) => !active.some((o) => o.startsWith(id + '.'))).join(', ') || node.status))));
  const root = svg('svg', { width: L.width, height: L.height, viewBox: '0 0 ' + L.width + ' ' + L.height, class: 'chart-svg' });
  root.appendChild(svg('defs')).appendChild(add(svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }), svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#7a7f85' })));
  const lit = new Set(active);
  const state = (id, x, y, w, h, label, cls) => {
    const g = svg('g', { class: 'state ' + cls + (lit.has(id) ? ' active' : ''), 'data-state': id, tabindex: 0 });
    add(g, svg('rect', { x, y, width: w, height: h, rx: 7 }), svg('text', { x: x + (cls === 'compound' ? 8 : w / 2), y: y + (cls === 'compound' ? 14 : h / 2 + 4), 'text-anchor': cls === 'compound' ? 'start' : 'middle' }, label));
    g.onclick = (event) => { event.stopPropagation(); S.picked = { key, id, context }; redraw(); };
    return g;
  };
  const nodes = L.chart.nodes;
  const depth = (n) => (n.parent ? 1 + depth(nodes.find((p) => p.id === n.parent)) : 0);
  for (const n of [...nodes].filter((n) => L.compound.has(n.id)).sort((a, b) => depth(a) - depth(b))) {
    const p = L.g.node(n.id);
    root.appendChild(state(n.id, p.x - p.width / 2, p.y - p.height / 2 - 8, p.width, p.height + 8, n.key, 'compound'));
    const a = L.g.node(anchor(n.id));
    root.appendChild(svg('circle', { cx: a.x, cy: a.y, r: 4, class: 'anchor' }));
  }
  L.chart.edges.forEach((e, i) => {
    const edge = L.g.edge({ v: L.compound.has(e.from) ? anchor(e.from) : e.from, w: L.compound.has(e.to) ? anchor(e.to) : e.to, name: 'e' + i });
    const d = edge.points.map((p, j) => (j ? 'L' : 'M') + p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' ');
    const cls = 'edge' + (flashing.has(i) ? ' flash' : '') + (lit.has(e.from) ? ' possible' : '');
    const g = add(svg('g', { class: cls, 'data-event': e.event }), svg('path', { d, 'marker-end': 'url(#arrow)' }));
    if (edge.x !== undefined) g.appendChild(svg('text', { x: edge.x, y: edge.y + 4, 'text-anchor': 'middle' }, e.label));
    root.appendChild(g);
  });
  for (const n of nodes.filter((n) => !L.compound.has(n.id))) {
    const p = L.g.node(n.id);
    root.appendChild(state(n.id, p.x - p.width / 2, p.y - p.height / 2, p.width, p.height, n.key, n.type === 'final' ? 'final' : 'leaf'));
  }
  box.appendChild(add(el('div', 'chart-scroll'), root));
  const accepts = [...new Set(L.chart.edges.filter((e) => lit.has(e.from)).map((e) => e.label))];
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

/**
 * chart-view.js of the inspector page: which part of a chart its pane shows. Each chart opens fitted to
 * its pane (never drawn larger than its natural size); the buttons, ctrl + wheel and dragging zoom and pan
 * it by moving the SVG's viewBox, and when the active state moves out of view the view pans to it at the
 * zoom the user chose. The view of each agent's machine lives in `S.views`, so it survives the redraws.
 */
export const chartViewScript = `
import { S, add, el, redraw } from './core.js';

const MIN_SCALE = 0.2;
const MAX_SCALE = 3;
const STEP = 1.25;
/** The smallest scale a chart opens at: its 10px labels are still 7px. */
const READABLE = 0.7;
/** A press that moves less than this many pixels is a click, not a drag. */
const DRAG_SLOP = 4;
let drag = null;
let endingDrag = false;

/** The view of one machine's chart: scale null (fitted, readable), 'whole' or a number; cx, cy its centre. */
export function viewOf(key) {
  let view = S.views.get(key);
  if (!view) { view = { scale: null, cx: 0, cy: 0, expanded: false, seen: '' }; S.views.set(key, view); }
  return view;
}

/** The room a chart has: the pane's inner width, and at most eight tenths of its height. */
export function room() {
  const content = document.getElementById('content');
  return { width: Math.max(240, content.clientWidth - 50), maxHeight: Math.max(240, Math.round(content.clientHeight * 0.8)) };
}
const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/**
 * Where the view stands for this layout: its scale, SVG height and viewBox. focus is the innermost active
 * state's box; when the active states changed (seen) and it is outside the view, the view pans to it.
 * Scale null fits the chart, but never below READABLE: a chart that would be drawn smaller opens at that
 * scale on its active state. 'whole' (the fit button) fits it whatever the scale.
 */
export function frame(key, layout, focus, seen) {
  const view = viewOf(key);
  const { width, maxHeight } = room();
  const fit = Math.min(1, width / layout.width, maxHeight / layout.height);
  const scale = view.scale === 'whole' ? fit : view.scale === null ? Math.max(fit, READABLE) : view.scale;
  const height = Math.round(Math.min(maxHeight, Math.max(layout.height * scale, Math.min(maxHeight, 120))));
  const boxWidth = width / scale; const boxHeight = height / scale;
  const whole = boxWidth >= layout.width - 1 && boxHeight >= layout.height - 1;
  if (whole) { view.cx = layout.width / 2; view.cy = layout.height / 2; }
  else if (focus && view.seen !== seen && (view.seen === '' || !inside(focus, view.cx, view.cy, boxWidth, boxHeight))) {
    view.cx = focus.x + focus.width / 2; view.cy = focus.y + focus.height / 2;
  }
  view.seen = seen;
  // Never further out than the chart's edge, so a pan cannot lose the chart.
  view.cx = boxWidth >= layout.width ? layout.width / 2 : clamp(view.cx, boxWidth / 2, layout.width - boxWidth / 2);
  view.cy = boxHeight >= layout.height ? layout.height / 2 : clamp(view.cy, boxHeight / 2, layout.height - boxHeight / 2);
  view.last = { fit, scale, width, height };
  return { height, whole, viewBox: [view.cx - boxWidth / 2, view.cy - boxHeight / 2, boxWidth, boxHeight].map((n) => n.toFixed(1)).join(' ') };
}
function inside(box, cx, cy, width, height) {
  return box.x >= cx - width / 2 && box.y >= cy - height / 2 && box.x + box.width <= cx + width / 2 && box.y + box.height <= cy + height / 2;
}

/** Zooms one chart by factor around a point in layout units (its centre when none is given). */
function zoom(key, factor, at) {
  const view = viewOf(key);
  if (!view.last) return;
  const before = view.last.scale;
  const after = clamp(before * factor, MIN_SCALE, MAX_SCALE);
  if (at) {
    // The point under the pointer stays under it.
    view.cx = at.x + (view.cx - at.x) * before / after;
    view.cy = at.y + (view.cy - at.y) * before / after;
  }
  view.scale = after;
  redraw();
}

/** The chart's buttons: zoom out, zoom in, fit, and showing every state or only the active regions. */
export function viewButtons(key, collapsedCount) {
  const view = viewOf(key);
  const button = (label, title, data, action) => {
    const b = el('button', '', label); b.title = title; b.dataset.view = data;
    b.onclick = (event) => { event.stopPropagation(); action(); };
    return b;
  };
  return add(el('span', 'chart-tools'),
    button('−', 'zoom out (ctrl + wheel)', 'out', () => zoom(key, 1 / STEP)),
    button('+', 'zoom in (ctrl + wheel)', 'in', () => zoom(key, STEP)),
    button('fit', 'the whole chart in the pane', 'fit', () => { view.scale = 'whole'; redraw(); }),
    view.expanded || collapsedCount
      ? button(view.expanded ? 'active regions' : 'all states', view.expanded ? 'collapse the regions that are not active' : 'open every collapsed region', 'expand',
        () => { view.expanded = !view.expanded; view.scale = null; redraw(); })
      : null);
}

/** Ctrl + wheel zooms around the pointer; a drag pans. Both act on the view of this machine. */
export function attachView(svg, key) {
  const toLayout = (event) => {
    const rect = svg.getBoundingClientRect(); const box = svg.viewBox.baseVal;
    return { x: box.x + (event.clientX - rect.left) * box.width / rect.width, y: box.y + (event.clientY - rect.top) * box.height / rect.height };
  };
  svg.addEventListener('wheel', (event) => {
    if (!event.ctrlKey && !event.metaKey) return; // a plain wheel scrolls the page
    event.preventDefault();
    zoom(key, event.deltaY < 0 ? STEP : 1 / STEP, toLayout(event));
  }, { passive: false });
  svg.addEventListener('pointerdown', (event) => {
    const view = viewOf(key);
    if (event.button !== 0 || !view.last) return;
    drag = { key, x: event.clientX, y: event.clientY, cx: view.cx, cy: view.cy, scale: view.last.scale, moved: false };
  });
}
/** True for the click that ends a drag, which picks no state. */
export function justDragged() { return endingDrag; }

window.addEventListener('pointermove', (event) => {
  if (!drag) return;
  const dx = event.clientX - drag.x; const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < DRAG_SLOP) return;
  drag.moved = true;
  const view = viewOf(drag.key);
  view.scale = drag.scale; view.cx = drag.cx - dx / drag.scale; view.cy = drag.cy - dy / drag.scale;
  redraw();
});
window.addEventListener('pointerup', () => {
  // The click the browser sends right after this pointerup belongs to the drag; it is over by the next task.
  if (drag && drag.moved) { endingDrag = true; setTimeout(() => { endingDrag = false; }, 0); }
  drag = null;
});
window.addEventListener('resize', () => redraw());
`;

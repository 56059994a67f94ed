import { inspectorCharts } from '../diagrams/chart-graph.ts';

const style = `
:root { --bg:#f7f7f5; --panel:#fff; --ink:#1d1f21; --muted:#6b7075; --line:#deded9; --accent:#0b63c5;
  --accent-bg:#e3eefb; --ok:#1b7f3b; --ok-bg:#e2f4e7; --warn:#8a5a00; --warn-bg:#fdf1d6; --bad:#b3261e; --bad-bg:#fbe4e2; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--ink); background:var(--bg); }
header { display:flex; gap:12px; align-items:center; padding:8px 16px; background:#20242a; color:#fff; }
header h1 { font-size:15px; margin:0; font-weight:600; }
.badge { font-size:12px; padding:1px 8px; border-radius:10px; background:#3a4048; color:#fff; }
.badge.on { background:#1b7f3b; } .badge.off { background:#b3261e; }
main { display:grid; grid-template-columns:minmax(300px,390px) 1fr; height:calc(100vh - 40px); }
aside { border-right:1px solid var(--line); overflow:auto; padding:10px; background:var(--panel); }
section.view { display:flex; flex-direction:column; overflow:hidden; }
h2 { font-size:12px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted); margin:14px 0 6px; }
.agent { display:block; width:100%; text-align:left; border:1px solid var(--line); background:var(--panel);
  border-radius:6px; padding:6px 8px; margin:0 0 6px; cursor:pointer; font:inherit; color:inherit; }
.agent.selected { border-color:var(--accent); box-shadow:0 0 0 1px var(--accent); }
.agent .id { font-weight:600; font-family:ui-monospace,monospace; }
.agent.child { margin-left:18px; width:calc(100% - 18px); }
.machine { border-left:3px solid var(--line); padding:2px 0 2px 8px; margin:4px 0; }
.machine .name { font-family:ui-monospace,monospace; font-size:12px; color:var(--muted); }
.states { display:flex; flex-wrap:wrap; gap:3px; margin-top:2px; }
.st { font-size:11.5px; padding:0 6px; border-radius:9px; border:1px solid var(--line); color:var(--muted); }
.st.active { background:var(--accent); border-color:var(--accent); color:#fff; font-weight:600; }
.kids { margin-left:12px; }
.turn { border:1px solid var(--line); border-radius:6px; padding:4px 8px; margin:4px 0; background:var(--panel); }
.call { display:flex; gap:6px; align-items:center; font-family:ui-monospace,monospace; font-size:12px; margin:2px 0 2px 12px; }
.pill { font-size:11.5px; padding:0 7px; border-radius:9px; background:#eceae4; white-space:nowrap; }
.pill.running,.pill.requesting,.pill.executing_tools { background:var(--accent-bg); color:var(--accent); font-weight:600; }
.pill.awaiting_approval,.pill.retrying { background:var(--warn-bg); color:var(--warn); font-weight:600; }
.pill.ok,.pill.completed { background:var(--ok-bg); color:var(--ok); }
.pill.error,.pill.denied,.pill.timeout,.pill.aborted,.pill.aborted_before_start,.pill.model_error,.pill.canceled,
.pill.unknown,.pill.not_started { background:var(--bad-bg); color:var(--bad); }
nav { display:flex; gap:2px; padding:6px 12px 0; border-bottom:1px solid var(--line); background:var(--panel); }
nav button { border:1px solid transparent; border-bottom:none; background:none; padding:6px 12px; cursor:pointer; font:inherit; color:var(--muted); border-radius:6px 6px 0 0; }
nav button.on { border-color:var(--line); background:var(--bg); color:var(--ink); font-weight:600; margin-bottom:-1px; }
#content { overflow:auto; padding:12px 16px 40px; flex:1; }
.msg { max-width:900px; border-radius:8px; padding:8px 10px; margin:8px 0; background:var(--panel); border:1px solid var(--line); white-space:pre-wrap; word-wrap:break-word; }
.msg.user { background:#eef3ff; border-color:#cddcf7; }
.msg .who { font-size:12px; color:var(--muted); margin-bottom:2px; white-space:normal; }
.msg.streaming::after { content:"▍"; color:var(--accent); }
.tool { max-width:900px; border:1px solid var(--line); border-radius:8px; margin:6px 0 6px 16px; background:var(--panel); }
.tool .head { display:flex; gap:8px; align-items:center; padding:5px 10px; font-family:ui-monospace,monospace; font-size:12.5px; }
.tool pre, .log pre { margin:0; padding:6px 10px; border-top:1px solid var(--line); font-size:12px; max-height:300px; overflow:auto; white-space:pre-wrap; }
.note { color:var(--muted); font-size:12.5px; margin:6px 0; }
.note.warn { color:var(--warn); } .note.bad { color:var(--bad); }
.compaction { border:1px dashed var(--line); border-radius:6px; padding:4px 8px; margin:8px 0; font-size:12.5px; color:var(--muted); }
.compaction pre { white-space:pre-wrap; color:var(--ink); }
.divider { border-top:1px solid var(--line); margin:18px 0 6px; padding-top:4px; font-weight:600; font-size:12.5px; color:var(--muted); }
table.log { border-collapse:collapse; width:100%; font-size:12.5px; }
table.log td { border-bottom:1px solid var(--line); padding:3px 6px; vertical-align:top; }
table.log td.type { font-family:ui-monospace,monospace; white-space:nowrap; }
table.log summary { cursor:pointer; font-family:ui-monospace,monospace; color:var(--muted); }
.insp { font-family:ui-monospace,monospace; font-size:12px; white-space:pre; }
.empty { color:var(--muted); padding:20px; }
#timeline { display:flex; gap:8px; align-items:center; padding:6px 12px; border-bottom:1px solid var(--line); background:var(--panel); font-size:12.5px; }
#timeline input[type=range] { flex:1; }
#timeline button { font:inherit; border:1px solid var(--line); background:var(--panel); border-radius:4px; cursor:pointer; }
#timeline button.on { background:var(--ok-bg); color:var(--ok); }
.seq-label { font-family:ui-monospace,monospace; min-width:260px; }
.chart { border:1px solid var(--line); border-radius:8px; background:var(--panel); margin:0 0 12px; padding:6px 8px; }
.chart-head { display:flex; gap:6px; align-items:baseline; font-family:ui-monospace,monospace; font-size:12.5px; }
.chart-tools { margin-left:auto; display:flex; gap:3px; }
.chart-tools button { font:12px ui-monospace,monospace; min-width:26px; border:1px solid var(--line); background:var(--panel); border-radius:4px; cursor:pointer; }
.chart-pane { overflow:hidden; border:1px solid #eeeeea; border-radius:6px; margin-top:4px; }
.chart-svg { display:block; cursor:grab; touch-action:none; user-select:none; }
.chart-ruler { position:absolute; left:-9999px; top:0; width:0; height:0; visibility:hidden; }
.chart-svg .state rect { fill:#fff; stroke:#b9bcc0; stroke-width:1; cursor:pointer; }
.chart-svg .state.compound rect { fill:#f6f7f9; stroke:#cfd3d8; stroke-dasharray:4 3; }
.chart-svg .state.collapsed rect { fill:#eef0f3; stroke:#9aa0a6; stroke-dasharray:4 3; }
.chart-svg .state.final rect { stroke-width:2.5; }
.chart-svg .state text { font:12px ui-monospace,monospace; fill:var(--ink); pointer-events:none; }
.chart-svg .state.compound text.title { font-weight:600; fill:var(--muted); }
.chart-svg .state.active rect { fill:var(--accent-bg); stroke:var(--accent); stroke-width:2; }
.chart-svg .state.active.compound rect { fill:#eef5fd; stroke-dasharray:none; }
.chart-svg .state.active.compound text.title { fill:var(--accent); }
.chart-svg .state.active.leaf text, .chart-svg .state.active.final text { font-weight:700; fill:var(--accent); }
.chart-svg .edge path { fill:none; stroke:#a3a8ae; stroke-width:1.2; }
.chart-svg .edge text { font:10px ui-monospace,monospace; fill:#70757b; paint-order:stroke; stroke:#fff; stroke-width:3px; stroke-linejoin:round; }
.chart-svg .edge.possible path { stroke:#5b8fd0; }
.chart-svg .edge.possible text { fill:#2d5d9a; }
.chart-svg .edge.flash path { stroke:#e8830c; stroke-width:3; animation:flash 1.6s ease-out; }
.chart-svg .edge.flash text { fill:#b35f00; }
@keyframes flash { from { stroke-width:6; } to { stroke-width:3; } }
.accepts { font-size:12px; color:var(--muted); font-family:ui-monospace,monospace; margin-top:4px; }
.picked { margin-top:6px; border-top:1px solid var(--line); font-size:12.5px; }
.picked pre { max-height:240px; overflow:auto; font-size:11.5px; background:#fafafa; padding:6px; }
.travel-note { margin:0 0 8px; }
#travel-banner { padding:6px 12px; background:var(--warn-bg); color:var(--warn); border-bottom:1px solid var(--line); font-size:12.5px; }
#travel-banner[hidden] { display:none; }
.log-position { border:1px solid var(--line); border-radius:8px; background:var(--panel); padding:6px 10px; max-width:900px; }
.log-position h3 { font-size:13px; margin:0 0 4px; }
.log-position .pos { font-family:ui-monospace,monospace; font-size:12.5px; margin:2px 0; }
.log-position .pos-call { margin-left:12px; }
.filters { display:flex; gap:6px; margin-bottom:6px; }
.filters input, .filters select, #agent-filter { font:inherit; font-size:12.5px; padding:2px 6px; border:1px solid var(--line); border-radius:4px; }
#agent-filter { width:100%; margin-bottom:6px; }
table.log th { text-align:left; font-size:11.5px; color:var(--muted); border-bottom:2px solid var(--line); padding:3px 6px; position:sticky; top:0; background:var(--bg); }
table.log td.time { font-family:ui-monospace,monospace; color:var(--muted); white-space:nowrap; }
.why .explain { display:block; font-size:11px; color:var(--bad); white-space:normal; }
pre.result .diff.add { background:#e6f6ea; color:#11632f; } pre.result .diff.del { background:#fbe9e7; color:#9b1c14; } pre.result .diff.hunk { color:#6f42c1; }
.agent-tree { max-width:1000px; }
.tree-node { border:1px solid var(--line); border-radius:6px; background:var(--panel); padding:4px 8px; margin:0 0 6px; }
.tree-node.selected { border-color:var(--accent); }
.tree-node .head { display:flex; gap:6px; align-items:center; flex-wrap:wrap; }
.tree-node .id { font:600 12.5px ui-monospace,monospace; border:none; background:none; padding:0; cursor:pointer; color:var(--accent); }
.tree-node .task { font-weight:600; margin-top:2px; }
.tree-node pre { margin:2px 0; font-size:12px; white-space:pre-wrap; max-height:200px; overflow:auto; }
.pill.finished,.pill.result { background:var(--ok-bg); color:var(--ok); } .pill.waiting { background:var(--warn-bg); color:var(--warn); }
.pill.stopped { background:var(--bad-bg); color:var(--bad); } .pill.relation,.pill.type,.pill.typed { background:#eef0f3; }
.result-box { border-top:1px dashed var(--line); margin-top:4px; padding-top:2px; }
table.mail pre { margin:0; padding:0; border-top:none; white-space:pre-wrap; font-size:12px; max-height:160px; overflow:auto; }
table.mail td.from, table.mail td.to { font-family:ui-monospace,monospace; white-space:nowrap; }
table.mail tr.result td { background:#f3faf5; }
.board-row { border:1px solid var(--line); border-left:4px solid var(--line); border-radius:6px; background:var(--panel); padding:5px 10px; margin:0 0 6px; cursor:pointer; max-width:1100px; }
.board-row.running { border-left-color:var(--accent); } .board-row.waiting { border-left-color:#e0a100; background:#fffaf0; }
.board-row.done { border-left-color:var(--ok); } .board-row.failed { border-left-color:var(--bad); }
.board-row.selected { box-shadow:0 0 0 1px var(--accent); } .board-row.disposed, .agent.disposed { opacity:.55; background:#f1f1ee; }
.board-row .head { display:flex; gap:8px; align-items:center; } .board-row .task { font-weight:600; }
.board-row .doing { font-family:ui-monospace,monospace; font-size:12.5px; margin-top:2px; white-space:pre-wrap; word-break:break-all; }
.board-row .to-transcript { margin-left:auto; font-size:12px; border:1px solid var(--line); border-radius:4px; background:var(--panel); cursor:pointer; }
.board-job { font-weight:600; margin:0 0 8px; padding:4px 10px; border-radius:6px; background:var(--accent-bg); max-width:1100px; }
#board-bar { padding:6px 16px 0; margin:0; } #board-filter { width:340px; } #board-bar[hidden] { display:none; }
.pill.done { background:var(--ok-bg); color:var(--ok); } .pill.failed { background:var(--bad-bg); color:var(--bad); }
.decide button { margin-left:6px; font-size:12px; padding:0 6px; border:1px solid var(--line); border-radius:4px; background:var(--panel); cursor:pointer; }
`;

/**
 * The inspector page: one HTML document with its CSS and the charts' graphs inline; its scripts are
 * served beside it (`pageAssets`), the layout library from node_modules. It loads nothing from elsewhere.
 * With a `token`, the page offers approve and deny on calls that wait for approval.
 */
export const inspectorPage = (token?: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${token ? `<meta name="agentchart-token" content="${token}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentchart inspector</title>
<style>${style}</style>
</head>
<body>
<header><h1 id="title">agentchart inspector</h1><span class="badge" id="source">…</span>
<span class="badge" id="conn">connecting</span></header>
<main>
<aside><h2>Agents <span class="note" id="agent-count"></span></h2><input id="agent-filter" placeholder="filter agents by id or state…">
<div id="agents"></div><h2>Turns</h2><div id="turns"></div></aside>
<section class="view"><div id="timeline"></div><div id="travel-banner" hidden></div><nav id="tabs"><button data-tab="board" class="on">Board</button><button data-tab="charts">Charts</button>
<button data-tab="transcript">Transcript</button><button data-tab="agents">Agents &amp; messages</button><button data-tab="log">Session log</button><button data-tab="inspection">Inspection events</button></nav>
<div id="board-bar" class="filters"><select id="board-state" title="show agents in this state"><option value="all">all</option><option value="running">running</option>
<option value="waiting">waiting</option><option value="done">done</option><option value="failed">failed</option><option value="idle">idle</option></select>
<input id="board-filter" placeholder="filter by task, agent id or tool…"><span class="note" id="board-count"></span></div>
<div id="content"></div></section>
</main>
<script type="application/json" id="charts">${JSON.stringify(inspectorCharts()).replace(/</g, '\\u003c')}</script>
<script src="/assets/dagre.js"></script>
<script type="module" src="/assets/main.js"></script>
</body>
</html>
`;

import type { AnyStateMachine } from 'xstate';
import { agentMachine } from '../machines/agent.ts';
import { stepMachine } from '../machines/step.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import { pageScript } from './page-script.ts';

/** Each chart's top-level states with their children, read from the machines themselves. */
function statesOf(machine: AnyStateMachine): [string, string[]][] {
  return Object.entries(machine.root.states).map(([name, node]) => [name, Object.keys(node.states)]);
}

/** The charts the page draws, keyed by the id their actors are spawned under (`batch` is the tool batch). */
export const pageCharts = {
  agent: statesOf(agentMachine),
  turn: statesOf(turnMachine),
  step: statesOf(stepMachine),
  batch: statesOf(toolBatchMachine),
};

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
.decide button { margin-left:6px; font-size:12px; padding:0 6px; border:1px solid var(--line); border-radius:4px; background:var(--panel); cursor:pointer; }
`;

/**
 * The whole inspector page: one HTML document with its CSS and script inline. It loads nothing else.
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
<aside><h2>Agents</h2><div id="agents"></div><h2>Machines</h2><div id="machines"></div>
<h2>Turns</h2><div id="turns"></div></aside>
<section class="view"><nav id="tabs"><button data-tab="transcript" class="on">Transcript</button>
<button data-tab="log">Session log</button><button data-tab="inspection">Inspection events</button></nav>
<div id="content"></div></section>
</main>
<script>
const CHARTS = ${JSON.stringify(pageCharts)};
${pageScript}
</script>
</body>
</html>
`;

import { rm } from 'node:fs/promises';
import type { LiveEvent } from '../../actors/live-event.ts';
import { systemClock } from '../../core/clock.ts';
import type { McpServerStatus } from '../../mcp/tool-source.ts';
import { scripted } from '../../providers/scripted.ts';
import { sessionFilePath } from '../../session/session-files.ts';
import { codingTools } from '../../tools/coding-tools.ts';
import {
  demoHook,
  demoScript,
  demoSteer,
  demoSystem,
  demoTask,
  isSteerMoment,
  prepareDemo,
} from '../demo-scenario.ts';
import { driveSession } from '../drive-session.ts';
import { readMcpConfig } from '../mcp-config.ts';
import { type CliIo, line, personOut, type TextOut } from '../terminal/io.ts';

export type DemoFlags = { json?: boolean; keep?: boolean; states?: boolean; mcpConfig?: string };

const scriptedNotice = [
  'This is the agentchart demo. The model is SCRIPTED: no LLM is called and no API key is needed.',
  'Everything else is real: the statecharts, the session log, and the coding tools working on real files.',
];
const realModelHint =
  'To use a real model: ANTHROPIC_API_KEY=… npx agentchart run "<task>" (or OPENAI_API_KEY=…)';

/**
 * `agentchart demo`: a scripted coding task through the real runtime and tools in a temporary project —
 * read files in parallel, run failing tests, fix the bug, run them again — with a steering message sent
 * while it works. The session log is kept for `agentchart replay`.
 */
export async function demoCommand(flags: DemoFlags, io: CliIo): Promise<number> {
  const json = flags.json ?? false;
  const ui = personOut(io, json);
  const { root, workspace } = await prepareDemo('agentchart-demo-');
  for (const text of scriptedNotice) line(ui, text);
  line(ui, `Workspace: ${workspace}`);
  line(ui, `Task: ${demoTask}`);
  line(ui, `Hook: every bash call goes past a command hook first (${demoHook.command})`);
  line(ui);
  const model = scripted(demoScript(), { clock: systemClock });
  const mcp =
    flags.mcpConfig === undefined
      ? undefined
      : await readMcpConfig(io.cwd, { file: flags.mcpConfig, variables: io.env });
  const system = demoSystem({
    root,
    workspace,
    model,
    tools: codingTools(),
    ...(mcp ? { mcpServers: mcp.servers } : {}),
  });
  try {
    const agent = await system.createAgent();
    showMcpServers(ui, agent.mcpServers());
    const steerOnce = (event: LiveEvent) => {
      if (!isSteerMoment(event)) return;
      line(ui, `(demo) while the tests run, the user steers: agent.steer("${demoSteer}")`);
      agent.steer(demoSteer);
    };
    const sessionFile = sessionFilePath(root, agent.sessionId);
    const exitCode = await driveSession({
      io,
      json,
      states: flags.states ?? false,
      system,
      agent,
      providerName: model.name,
      sessionFile,
      start: () => agent.run(demoTask),
      onEvent: steerOnce,
      epilogue: [`Replay it: npx agentchart replay ${sessionFile}`],
    });
    model.assertConsumed();
    line(ui, flags.keep ? `Workspace kept at ${workspace}` : 'The workspace was removed (--keep keeps it).');
    line(ui, `That was a SCRIPTED model (no LLM was called). ${realModelHint}`);
    return exitCode;
  } finally {
    await system.dispose();
    if (!flags.keep) await rm(workspace, { recursive: true, force: true });
  }
}

/** The MCP servers the demo agent started and the tools each one offers (the scripted model does not call them). */
function showMcpServers(ui: TextOut, servers: McpServerStatus[]): void {
  for (const { server, transport, tools } of servers) {
    line(ui, `MCP server ${server} (${transport}) offers ${tools.length} tool(s):`);
    for (const tool of tools) line(ui, `  ${tool.name} [${tool.access}]`);
  }
  if (servers.length > 0) line(ui);
}

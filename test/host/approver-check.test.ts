// Tools that would ask for approval in a system with nobody to approve: refused at creation with how to
// fix it, because every such call would be denied while the turn still says `completed`. `approve: 'deny'`
// says so on purpose: the calls are denied headless and the run result lists them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentSystemOptions,
  ConfigError,
  codingTools,
  createAgentSystem,
  defineTool,
  taskTool,
} from '../../src/index.ts';
import { scripted } from '../../src/testing.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy the site.',
  access: 'exec',
  input: z.object({}),
  run: async () => 'deployed',
});
const look = defineTool({
  name: 'look',
  description: 'Look around.',
  access: 'read',
  input: z.object({}),
  run: async () => 'nothing',
});

/** What `createAgentSystem` said about these options: `ok`, or the ConfigError's message. */
function creation(options: Partial<AgentSystemOptions>): string {
  try {
    const system = createAgentSystem({ model: scripted([]), projectInstructions: false, ...options });
    cleanups.push(() => system.dispose());
    return 'ok';
  } catch (error) {
    return ConfigError.isInstance(error) ? error.message : `not a ConfigError: ${String(error)}`;
  }
}

const howToFix =
  "Pass approve: a function that answers, 'manual' (answer with agent.approve/agent.deny), or 'deny' to " +
  "deny them on purpose (headless); or let them run with permissionMode 'accept-edits' or 'bypass' or " +
  'permissions.allow rules.';

describe('a system with tools that ask and nobody to approve', () => {
  it('is a ConfigError at createAgentSystem naming the tools, why they ask, and how to fix it', () => {
    expect(creation({ tools: codingTools() })).toBe(
      'createAgentSystem: write_file, edit_file (write access needs approval in default mode) and bash ' +
        '(exec access needs approval in default mode) need approval, and there is no approver, so every such ' +
        `call would be denied. ${howToFix}`,
    );
    expect(creation({ tools: [look, deploy], permissionMode: 'accept-edits' })).toBe(
      'createAgentSystem: deploy (exec access needs approval in accept-edits mode) needs approval, and there ' +
        `is no approver, so every such call would be denied. ${howToFix}`,
    );
    expect(creation({ tools: [look], permissionMode: 'bypass', permissions: { ask: ['look'] } })).toBe(
      'createAgentSystem: look (the rule look asks) needs approval, and there is no approver, so every such ' +
        `call would be denied. ${howToFix}`,
    );
    // Subagents in a stricter mode ask their parent's approver, which there is not.
    expect(
      creation({
        tools: [deploy, taskTool()],
        permissionMode: 'bypass',
        subagents: { permissionMode: 'default' },
      }),
    ).toBe(
      'createAgentSystem: deploy (exec access needs approval in default mode) needs approval, and there is no ' +
        `approver, so every such call would be denied. ${howToFix}`,
    );
    // An MCP server's tools are known only once it runs; they are write tools unless marked read-only.
    expect(creation({ mcpServers: { fs: { command: 'never-started' } } })).toBe(
      'createAgentSystem: mcp__fs__* (write access needs approval in default mode) needs approval, and there ' +
        `is no approver, so every such call would be denied. ${howToFix}`,
    );
    expect(creation({ permissionMode: 'plan' })).toBe(
      'createAgentSystem: exit_plan_mode (a plan waits for the host to accept it) needs approval, and there ' +
        `is no approver, so every such call would be denied. ${howToFix}`,
    );
  });

  it('is fine when nothing asks, someone answers, a preTool hook may, or the host says deny', () => {
    const asking = { tools: [look, deploy] };
    expect([
      creation({ tools: [look] }),
      creation({ ...asking, permissionMode: 'bypass' }),
      creation({ ...asking, permissions: { allow: ['deploy'] } }),
      creation({ ...asking, permissions: { deny: ['deploy'] } }),
      creation({ ...asking, approve: async () => 'allow' }),
      creation({ ...asking, approve: 'manual' }),
      creation({ ...asking, approve: 'deny' }),
      creation({ ...asking, hooks: { preTool: [async () => undefined] } }),
      creation({ ...asking, permissionMode: 'plan', approve: 'deny' }),
      creation({ tools: [deploy], permissionMode: 'bypass', subagents: { permissionMode: 'default' } }),
      creation({ mcpServers: { fs: { command: 'never-started' } }, permissions: { allow: ['mcp__fs'] } }),
      creation({ mcpServers: { fs: { command: 'never-started' } }, permissionMode: 'accept-edits' }),
    ]).toEqual(Array.from({ length: 12 }, () => 'ok'));
  });

  it('refuses what is neither an approver nor "manual" nor "deny"', () => {
    expect(creation({ tools: [deploy], approve: 'DENY' as never })).toBe(
      'createAgentSystem: approve must be a function, "manual" or "deny", got "DENY"',
    );
  });

  it("checks an agent's own tools at createAgent, resumeAgent and forkAgent", async () => {
    const system = createAgentSystem({ model: scripted([]), tools: [look], projectInstructions: false });
    cleanups.push(() => system.dispose());
    const refused = `deploy (exec access needs approval in default mode) needs approval, and there is no approver, so every such call would be denied. ${howToFix}`;
    await expect(system.createAgent({ tools: [deploy] })).rejects.toThrow(`createAgent: ${refused}`);
    await expect(system.resumeAgent('x', { tools: [deploy] })).rejects.toThrow(`resumeAgent: ${refused}`);
    await expect(system.forkAgent('x', { tools: [deploy] })).rejects.toThrow(`forkAgent: ${refused}`);
    expect(system.list()).toEqual([]);
  });

  it('refuses to switch an agent into a mode where its tools would ask, and logs no switch', async () => {
    const system = createAgentSystem({
      model: scripted([]),
      tools: [look, deploy],
      permissionMode: 'bypass',
      projectInstructions: false,
    });
    cleanups.push(() => system.dispose());
    const agent = await system.createAgent();
    expect(() => agent.setPermissionMode('default')).toThrow(
      'agent.setPermissionMode: deploy (exec access needs approval in default mode) needs approval, and there ' +
        `is no approver, so every such call would be denied. ${howToFix}`,
    );
    expect(() => agent.setPermissionMode('plan')).toThrow(
      'agent.setPermissionMode: exit_plan_mode (a plan waits for the host to accept it) needs approval',
    );
    expect(agent.permissionMode).toBe('bypass');
    expect(agent.log().filter((event) => event.type === 'mode.changed')).toEqual([]);
  });

  it("with approve: 'deny', denies such calls headless and the run result says so", async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'agentchart-deny-'));
    cleanups.push(() => rm(cwd, { recursive: true, force: true }));
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'npm test' } }] },
        { text: 'I could not run the tests.' },
      ]),
      tools: codingTools(),
      cwd,
      approve: 'deny',
      projectInstructions: false,
    });
    cleanups.push(() => system.dispose());
    const agent = await system.createAgent();
    const { reason, denied } = await agent.run('Run the tests');
    expect({ reason, denied }).toEqual({
      reason: 'completed',
      denied: [
        {
          callId: 'c1',
          tool: 'bash',
          input: { command: 'npm test' },
          by: 'headless',
          reason:
            'exec access needs approval in default mode; nobody can approve it in this session (headless), so it was denied',
        },
      ],
    });
  });
});

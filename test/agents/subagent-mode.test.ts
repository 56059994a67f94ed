// A subagent never runs looser than its parent: it starts in the parent's mode of that moment (not the
// mode the parent was created with), a host cannot switch it looser than its parent, and a parent switched
// stricter takes its live subagents down with it — each switch logged in the child's session.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors/config-error.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { taskTool } from '../../src/tools/task.ts';
import { counterIds, routedModel, tickingClock } from '../support/crash-kit.ts';

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

const task = (prompt: string) => ({ name: 'task', input: { description: 'delegate', prompt } });
const modeChanges = (events: readonly LogEvent[]) =>
  events.filter((event) => isEvent(event, 'mode.changed')).map((event) => event.data);

describe('a subagent and its parent’s permission mode', () => {
  it('starts in the parent’s current mode, refuses a looser one and follows its parent down', async () => {
    const seen: Record<string, unknown> = {};
    let parent: Agent | undefined;
    // Runs inside the child's turn, while the parent waits for its task call.
    const probe = defineTool({
      name: 'probe',
      description: 'Looks at the subagent from the host side',
      access: 'none',
      input: z.object({}),
      run: async () => {
        const child = system!.list().find((agent) => agent.id !== 'parent')!;
        seen.started = child.permissionMode;
        seen.looser = (() => {
          try {
            child.setPermissionMode('bypass');
            return 'switched';
          } catch (error) {
            return ConfigError.isInstance(error) ? error.message : `unexpected ${String(error)}`;
          }
        })();
        child.setPermissionMode('default');
        seen.stricter = child.permissionMode;
        parent!.setPermissionMode('plan');
        seen.followed = child.permissionMode;
        return 'looked';
      },
    });
    const model = routedModel({
      'please delegate': [{ toolCalls: [task('child: look')] }, { text: 'Parent done.' }],
      'child: look': [{ toolCalls: [{ name: 'probe', input: {} }] }, { text: 'Child done.' }],
    });
    system = createAgentSystem({
      model,
      tools: [taskTool(), probe],
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      // Plan mode, where the parent goes, asks the host to accept a plan: nobody does here.
      approve: 'deny',
    });
    parent = await system.createAgent({ id: 'parent' });
    parent.setPermissionMode('accept-edits');
    const result = await parent.run('please delegate');
    expect(result).toMatchObject({ reason: 'completed', text: 'Parent done.' });

    expect(seen).toEqual({
      // The system's mode is bypass; the parent runs accept-edits when the child starts.
      started: 'accept-edits',
      looser:
        'agent.setPermissionMode: "bypass" is looser than the mode of this subagent\'s parent ' +
        '("accept-edits"); a subagent never runs looser than its parent',
      stricter: 'default',
      followed: 'plan',
    });
    const childId = parent
      .log()
      .filter((event) => isEvent(event, 'agent.spawned'))
      .map((event) => event.data.childSessionId)[0]!;
    const child = (await system.store.load(childId)).events;
    expect(modeChanges(child)).toEqual([
      { from: 'accept-edits', to: 'default', by: 'host' },
      { from: 'default', to: 'plan', by: 'host' },
    ]);
    expect(modeChanges(parent.log())).toEqual([
      { from: 'bypass', to: 'accept-edits', by: 'host' },
      { from: 'accept-edits', to: 'plan', by: 'host' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { recordedToolSet } from '../../src/replay/recorded-tool-set.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { legacyTaskTool, taskTool } from '../../src/tools/task.ts';
import { describeToolInput } from '../../src/tools/tool-input.ts';

const startWith = (names: string[], permissionMode: string): LogEvent[] => [
  {
    v: 1,
    seq: 0,
    ts: 0,
    type: 'session.start',
    data: { agentId: 'a', config: { permissionMode, tools: names.map((name) => ({ name })) } },
  } as LogEvent,
];
const coding = ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'bash'];
const namesOf = (names: string[], mode: string) =>
  recordedToolSet(startWith(names, mode)).tools.map((tool) => tool.name);

describe('recordedToolSet', () => {
  it('offers task only when the recording offered it', () => {
    expect(namesOf([...coding, 'task'], 'accept-edits')).toEqual([...coding, 'task']);
    expect(namesOf(coding, 'default')).toEqual(coding);
  });

  it('keeps the write and exec tools a recording started in plan mode did not list', () => {
    const listed = ['read_file', 'list_dir', 'glob', 'grep', 'task', 'exit_plan_mode'];
    expect(namesOf(listed, 'plan')).toEqual([...coding, 'task']);
  });

  it('names the tools only the host can give, not those the runtime supplies in a replay', () => {
    const names = [...coding, 'lookup', 'skill', 'exit_plan_mode', 'mcp__everything__echo', 'deploy'];
    expect(recordedToolSet(startWith(names, 'default')).unknown).toEqual(['lookup', 'deploy']);
  });

  it('offers the task tool as a recording from before agent_type described it, so its tools stay the recorded ones', () => {
    const taskWith = (schema: Record<string, unknown>): LogEvent[] => [
      {
        v: 1,
        seq: 0,
        ts: 0,
        type: 'session.start',
        data: {
          agentId: 'a',
          config: { permissionMode: 'default', tools: [{ name: 'task', inputSchema: schema }] },
        },
      } as LogEvent,
    ];
    const offered = (schema: Record<string, unknown>) => {
      const task = recordedToolSet(taskWith(schema)).tools.find((tool) => tool.name === 'task')!;
      return describeToolInput(task.input);
    };
    const legacy = describeToolInput(legacyTaskTool().input);
    const current = describeToolInput(taskTool().input);
    expect(Object.keys(legacy.properties as object)).toEqual([
      'description',
      'prompt',
      'tools',
      'instructions',
    ]);
    expect(Object.keys(current.properties as object)).toEqual([
      'description',
      'prompt',
      'tools',
      'instructions',
      'agent_type',
    ]);
    expect(offered(legacy)).toEqual(legacy);
    expect(offered(current)).toEqual(current);
  });
});

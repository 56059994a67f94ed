// Claude Code's tool names and input fields, beside agentchart's own. The model and the session log keep
// agentchart's names (`bash`, `read_file`, ...), so old logs load and replay unchanged; wherever a person
// writes or reads a tool name — permission rules, hook matchers, a command hook's stdin — Claude Code's name
// means the same tool, so settings and hook scripts copied from Claude Code work as they are. This is the one
// table of that mapping; permissions and hooks read it. Names only: no tool is loaded here.
import path from 'node:path';

type BuiltIn = {
  /** agentchart's tool. */
  tool: string;
  /** Claude Code's name a command hook reads as `tool_name`. */
  claude: string;
  /** agentchart's input field and Claude Code's name for it, where they differ or Claude Code has it. */
  fields: Readonly<Record<string, string>>;
  /** Fields that hold a workspace path: Claude Code hands hooks absolute paths. */
  absolute?: readonly string[];
};

/** Each agentchart built-in tool with its Claude Code name and fields (tools-reference, hooks "PreToolUse input"). */
const builtIns: readonly BuiltIn[] = [
  { tool: 'bash', claude: 'Bash', fields: { command: 'command', timeout_ms: 'timeout' } },
  {
    tool: 'read_file',
    claude: 'Read',
    fields: { path: 'file_path', offset: 'offset', limit: 'limit' },
    absolute: ['file_path'],
  },
  {
    tool: 'write_file',
    claude: 'Write',
    fields: { path: 'file_path', content: 'content' },
    absolute: ['file_path'],
  },
  {
    tool: 'edit_file',
    claude: 'Edit',
    fields: {
      path: 'file_path',
      old_string: 'old_string',
      new_string: 'new_string',
      replace_all: 'replace_all',
    },
    absolute: ['file_path'],
  },
  { tool: 'glob', claude: 'Glob', fields: { pattern: 'pattern', path: 'path' } },
  {
    tool: 'grep',
    claude: 'Grep',
    fields: { pattern: 'pattern', path: 'path', glob: 'glob', context: 'context' },
  },
  { tool: 'list_dir', claude: 'LS', fields: { path: 'path' } },
  { tool: 'task', claude: 'Task', fields: { description: 'description', prompt: 'prompt' } },
  { tool: 'skill', claude: 'Skill', fields: { name: 'skill', args: 'args' } },
  { tool: 'exit_plan_mode', claude: 'ExitPlanMode', fields: { plan: 'plan' } },
];

/**
 * The agentchart tools each Claude Code name stands for in a rule or a matcher. `Edit` rules cover every tool
 * that edits files and `Read` rules the tools that read them (permissions "Read and Edit paths"); `MultiEdit`
 * (Claude Code's legacy tool, whose payload holds a list of edits) is `edit_file`; `Agent` is `Task`'s new name.
 */
const claudeNameTools: Readonly<Record<string, readonly string[]>> = {
  Bash: ['bash'],
  Read: ['read_file', 'grep', 'glob', 'list_dir'],
  Write: ['write_file'],
  Edit: ['edit_file', 'write_file'],
  MultiEdit: ['edit_file'],
  Glob: ['glob'],
  Grep: ['grep'],
  LS: ['list_dir'],
  Task: ['task'],
  Agent: ['task'],
  Skill: ['skill'],
  ExitPlanMode: ['exit_plan_mode'],
};

/** Claude Code's tools agentchart has no counterpart for (current and 2025 lists): known, but naming nothing here. */
const claudeOnlyNames: ReadonlySet<string> = new Set([
  'Artifact',
  'AskUserQuestion',
  'BashOutput',
  'CronCreate',
  'CronDelete',
  'CronList',
  'EndConversation',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitWorktree',
  'KillShell',
  'ListAgents',
  'ListMcpResourcesTool',
  'LSP',
  'Monitor',
  'NotebookEdit',
  'NotebookRead',
  'PowerShell',
  'PushNotification',
  'ReadMcpResourceTool',
  'RemoteTrigger',
  'ReportFindings',
  'ScheduleWakeup',
  'SendMessage',
  'SendUserFile',
  'ShareOnboardingGuide',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TaskUpdate',
  'TodoWrite',
  'ToolSearch',
  'WaitForMcpServers',
  'WebFetch',
  'WebSearch',
  'Workflow',
]);

const byTool = new Map(builtIns.map((entry) => [entry.tool, entry]));

/** agentchart's built-in tool names. */
export const builtInToolNames: readonly string[] = builtIns.map((entry) => entry.tool);

/** The agentchart tools a Claude Code name stands for; empty for any other name. */
export function toolsOfClaudeName(name: string): readonly string[] {
  return Object.hasOwn(claudeNameTools, name) ? claudeNameTools[name]! : [];
}

/**
 * The one agentchart tool that is Claude Code's tool `name` itself (`Read` is `read_file`, `MultiEdit` and
 * `Edit` are `edit_file`, `Agent` is `task`), or undefined. Narrower than `toolsOfClaudeName`, which is what
 * a rule covers: a list of tools to grant (a sub-agent's `tools`) grants no tool its author did not name.
 */
export function toolOfClaudeName(name: string): string | undefined {
  const own = builtIns.find((entry) => entry.claude === name)?.tool;
  if (own !== undefined) return own;
  return Object.entries(matcherAliases).find(([, aliases]) => aliases.includes(name))?.[0];
}

/** Whether `name` is a tool of Claude Code's that agentchart does not have (`WebFetch`, `TodoWrite`, ...). */
export function isClaudeOnlyTool(name: string): boolean {
  return claudeOnlyNames.has(name);
}

/** Every Claude Code name, those with an agentchart counterpart first. */
export const claudeToolNames: readonly string[] = [...Object.keys(claudeNameTools), ...claudeOnlyNames];

/** Claude Code's other names a matcher may use for a tool's calls: its legacy `MultiEdit`, `Task`'s new name. */
const matcherAliases: Readonly<Record<string, readonly string[]>> = {
  edit_file: ['MultiEdit'],
  task: ['Agent'],
};

/**
 * The names a hook matcher is tried on for a tool: its own, its Claude Code name and that tool's other names.
 * Narrower than rules: Claude Code's `Edit` matcher fires for `Edit` only, though an `Edit` rule covers writes.
 */
export function matcherNamesOf(toolName: string): readonly string[] {
  const entry = byTool.get(toolName);
  return entry === undefined ? [toolName] : [toolName, entry.claude, ...(matcherAliases[toolName] ?? [])];
}

/** The `tool_name` a command hook reads: Claude Code's name for a built-in tool, any other name as it is. */
export function claudeToolName(toolName: string): string {
  return byTool.get(toolName)?.claude ?? toolName;
}

/**
 * A built-in tool's input with Claude Code's field names (paths made absolute against `cwd`, as Claude Code
 * gives them); fields Claude Code has no name for keep agentchart's. Any other tool's input is unchanged.
 */
export function toClaudeInput(toolName: string, input: unknown, cwd: string): unknown {
  const entry = byTool.get(toolName);
  if (entry === undefined || !isRecord(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const claude = entry.fields[key] ?? key;
    out[claude] =
      entry.absolute?.includes(claude) && typeof value === 'string' ? path.resolve(cwd, value) : value;
  }
  return out;
}

/**
 * A hook's `updatedInput` for a built-in tool back in agentchart's field names, so it is checked and logged
 * as the tool's own input. An absolute path stays absolute (the tools read it inside the workspace).
 */
export function fromClaudeInput(toolName: string, input: Record<string, unknown>): Record<string, unknown> {
  const entry = byTool.get(toolName);
  if (entry === undefined) return input;
  const back = new Map(Object.entries(entry.fields).map(([ours, claude]) => [claude, ours]));
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [back.get(key) ?? key, value]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

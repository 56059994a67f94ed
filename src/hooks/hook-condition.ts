// A handler's `if` (Claude Code, hooks "Common handler fields"): one permission rule, and the hook runs only
// for the tool calls it matches. It is read with the permission rules' own matcher, the way a deny rule is:
// `Bash(git commit:*)` matches `git commit -m x`, `cd a && git commit`, `echo $(git commit)`; when the
// command line cannot be read for sure, the hook runs (Claude Code: `if` "fails open" to running the hook).
import { readCommandLine } from '../permissions/command-reading.ts';
import { commandDenyRule, unsureUnderDeny } from '../permissions/command-rules.ts';
import { matchesRule, parseRule, stringArgument } from '../permissions/rules.ts';

/**
 * Whether a call of `toolName` with `input`, made by an agent working in `cwd`, is one the rule `condition`
 * matches. The rule is parsed once; `cwd` comes with each call, since agents of one system may work in
 * different folders (an isolated agent in its worktree).
 */
export function callCondition(condition: string): (toolName: string, input: unknown, cwd: string) => boolean {
  const rule = parseRule(condition);
  return (toolName, input, cwd) => {
    const command = stringArgument(input, 'command');
    if (command === undefined) return matchesRule(rule, toolName, input, cwd);
    const reading = readCommandLine(command, cwd);
    return (
      commandDenyRule([rule], toolName, command, reading) !== undefined ||
      unsureUnderDeny([rule], toolName, reading) !== undefined
    );
  };
}

import { ConfigError } from '../errors/config-error.ts';
import { type PermissionMode, stricterMode } from '../permissions/modes.ts';
import type { LogEntry } from '../session/types.ts';

/**
 * The `mode.changed` entry that switching from `from` to `to` logs, or `undefined` when the agent is in
 * `to` already. A subagent's `ceiling` is its parent's mode now: switching it looser is a `ConfigError`;
 * so is a mode `check` refuses (tools that would ask where nobody can answer).
 */
export function modeSwitch(change: {
  from: PermissionMode;
  to: PermissionMode;
  ceiling: PermissionMode | undefined;
  by: 'host' | 'user';
  check: (mode: PermissionMode) => void;
}): LogEntry | undefined {
  const { from, to, ceiling, by } = change;
  if (ceiling !== undefined && stricterMode(to, ceiling) !== to) {
    throw new ConfigError(
      `agent.setPermissionMode: "${to}" is looser than the mode of this subagent's parent ` +
        `("${ceiling}"); a subagent never runs looser than its parent`,
    );
  }
  if (from === to) return undefined;
  change.check(to);
  return { type: 'mode.changed', data: { from, to, by } };
}

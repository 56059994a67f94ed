import type { PermissionGate, PermissionVerdict } from '../actors/tool-check.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import {
  decidePermission,
  type PermissionMode,
  type PermissionRule,
  sessionKey,
} from '../tools/permissions.ts';

/**
 * An agent's permission state: mode and rules from the host, plus what the user allowed "for the
 * session". Session allowances are folded from the log (`approval.decided` with `allow_session`), so a
 * resumed session keeps them.
 */
export class AgentPermissionGate implements PermissionGate {
  readonly canAsk: boolean;
  private readonly sessionAllowed = new Set<string>();
  // Calls without a result yet, so an approval can be tied back to its tool and input.
  private readonly openCalls = new Map<string, { name: string; input: unknown }>();

  constructor(
    private readonly options: {
      mode: PermissionMode;
      allow: readonly PermissionRule[];
      deny: readonly PermissionRule[];
      cwd: string;
      canAsk: boolean;
    },
  ) {
    this.canAsk = options.canAsk;
  }

  decide(tool: AnyTool, input: unknown): PermissionVerdict {
    return decidePermission({
      mode: this.options.mode,
      allow: this.options.allow,
      deny: this.options.deny,
      sessionAllowed: this.sessionAllowed,
      tool,
      input,
      cwd: this.options.cwd,
    });
  }

  /** Feeds one log event; called for every event of the session, old and new, in order. */
  observe(event: LogEvent): void {
    if (isEvent(event, 'tool.call')) {
      this.openCalls.set(event.data.callId, { name: event.data.name, input: event.data.input });
    } else if (isEvent(event, 'tool.result')) {
      this.openCalls.delete(event.data.callId);
    } else if (isEvent(event, 'approval.decided') && event.data.outcome === 'allow_session') {
      // A decision comes before its call's result, so the call is still open here.
      const call = this.openCalls.get(event.data.callId);
      if (call) this.sessionAllowed.add(sessionKey(call, call.input));
    }
  }
}

import type { PermissionGate, PermissionVerdict } from '../actors/tool-check.ts';
import type { LogEvent } from '../session/types.ts';
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
  private readonly callsAwaitingDecision = new Map<string, { name: string; input: unknown }>();

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
    if (event.type === 'approval.asked') {
      const call = this.pendingCalls.get(String(event.data.callId));
      if (call) this.callsAwaitingDecision.set(String(event.data.callId), call);
    } else if (event.type === 'tool.call') {
      this.pendingCalls.set(String(event.data.callId), {
        name: String(event.data.name),
        input: event.data.input,
      });
    } else if (event.type === 'tool.result') {
      this.pendingCalls.delete(String(event.data.callId));
    } else if (event.type === 'approval.decided') {
      const callId = String(event.data.callId);
      const call = this.callsAwaitingDecision.get(callId);
      this.callsAwaitingDecision.delete(callId);
      if (call && event.data.outcome === 'allow_session')
        this.sessionAllowed.add(sessionKey(call, call.input));
    }
  }

  // Calls of the current batch, so an approval can be tied back to its tool and input.
  private readonly pendingCalls = new Map<string, { name: string; input: unknown }>();
}

import { isEvent, type LogEvent } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { decidePermission, type PermissionDecision, sessionKey } from './decide.ts';
import type { PermissionMode } from './modes.ts';
import { type PermissionRule, ruleProblem } from './rules.ts';

/**
 * Decides whether calls may run; the tool-check actor asks it about every validated call.
 * Contract: `decide` is synchronous and pure for a given session state; `canAsk` says whether an
 * `ask` can be answered by someone (a host approver or a UI); without one, ask means deny.
 */
export interface PermissionGate {
  decide(tool: AnyTool, input: unknown): PermissionDecision;
  readonly canAsk: boolean;
}

/** The permission settings one agent runs with. */
export type PermissionSettings = {
  mode: PermissionMode;
  allow: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  /** Whether an `ask` can be answered; without it, ask means deny. */
  canAsk: boolean;
};

/**
 * An agent's permission state: mode and rules from the host, plus what the user allowed "for the
 * session". Session allowances are folded from the log (`approval.decided` with `allow_session`), so a
 * resumed session keeps them.
 */
export class AgentPermissionGate implements PermissionGate {
  readonly canAsk: boolean;
  private readonly sessionAllowed = new Set<string>();
  private readonly sessionRules: PermissionRule[] = [];
  // Calls without a result yet, so an approval can be tied back to its tool and input.
  private readonly openCalls = new Map<string, { name: string; input: unknown }>();

  /** `cwd` is the workspace root, against which rules read an absolute `path` argument. */
  constructor(private readonly options: PermissionSettings & { cwd: string }) {
    this.canAsk = options.canAsk;
  }

  decide(tool: AnyTool, input: unknown): PermissionDecision {
    return decidePermission({
      mode: this.options.mode,
      allow: this.options.allow,
      deny: this.options.deny,
      sessionAllowed: this.sessionAllowed,
      sessionRules: this.sessionRules,
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
      // With a rule (allow this prefix), the rule is remembered instead of the exact call.
      // A malformed rule (a hand-edited log) is ignored: the call was allowed, nothing more is.
      const { rule } = event.data;
      if (rule !== undefined && ruleProblem(rule) === undefined) this.sessionRules.push(rule);
      const call = this.openCalls.get(event.data.callId);
      if (call && event.data.rule === undefined) this.sessionAllowed.add(sessionKey(call, call.input));
    }
  }
}

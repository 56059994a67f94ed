import { isEvent, type LogEvent } from '../session/types.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import { decidePermission, type PermissionDecision, sessionKey } from './decide.ts';
import { defaultPermissionMode, exitPlanModeName, isPermissionMode, type PermissionMode } from './modes.ts';
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
  /** Rules whose calls always ask (deny, then ask, then allow). */
  ask?: readonly PermissionRule[];
  deny: readonly PermissionRule[];
  /** Whether an `ask` can be answered; without it, ask means deny. */
  canAsk: boolean;
  /** Real paths of folders a `bash` line writing into asks for (a parent's skill folders, for a subagent). */
  readOnlyFolders?: readonly string[];
  /**
   * Settings' `permissions.disableBypassPermissionsMode`: bypass mode is refused where a host asks for it
   * (a `ConfigError`), and should the mode still become `bypass` (a plan accepted into it, a host's
   * `setPermissionMode`), calls are decided as in `default` mode, so the setting never fails open.
   */
  bypassDisabled?: boolean;
};

/**
 * An agent's permission state: mode and rules from the host, plus what the user allowed "for the
 * session". Session allowances are folded from the log (`approval.decided` with `allow_session`), so a
 * resumed session keeps them.
 */
export class AgentPermissionGate implements PermissionGate {
  readonly canAsk: boolean;
  private currentMode: PermissionMode;
  // The modes hosts named when they accepted a plan, by the `exit_plan_mode` call's id.
  private readonly planModes = new Map<string, PermissionMode>();
  private readonly sessionAllowed = new Set<string>();
  private readonly sessionRules: PermissionRule[] = [];
  // Calls without a result yet, so an approval can be tied back to its tool and input.
  private readonly openCalls = new Map<string, { name: string; input: unknown }>();
  private protectedFolders: readonly string[];

  /** `cwd` is the workspace root, against which rules read an absolute `path` argument. */
  constructor(private readonly options: PermissionSettings & { cwd: string }) {
    this.canAsk = options.canAsk;
    this.currentMode = options.mode;
    this.protectedFolders = [...(options.readOnlyFolders ?? [])];
  }

  /** Adds folders (real paths; a loaded skill's) that a `bash` line writing into asks for, whatever allows it. */
  protectFolders(folders: readonly string[]): void {
    this.protectedFolders = [...new Set([...this.protectedFolders, ...folders])];
  }

  /** The folders `protectFolders` and the settings named: handed on to a subagent. */
  get readOnlyFolders(): readonly string[] {
    return this.protectedFolders;
  }

  /** The mode calls are decided in now: the host's, until the log records a `mode.changed`. */
  get mode(): PermissionMode {
    return this.currentMode;
  }

  /** The mode the host named when it accepted the plan of `callId` (`default` when it named none). */
  modeAfterPlan(callId: string): PermissionMode {
    return this.planModes.get(callId) ?? defaultPermissionMode;
  }

  decide(tool: AnyTool, input: unknown): PermissionDecision {
    // A plan is always put to the host, whatever the rules say; outside plan mode there is none to accept.
    if (tool.name === exitPlanModeName) {
      return this.currentMode === 'plan'
        ? { decision: 'ask', by: 'mode', reason: 'a plan waits for the host to accept it' }
        : { decision: 'deny', by: 'mode', reason: `not in plan mode (the mode is ${this.currentMode})` };
    }
    const barred = this.currentMode === 'bypass' && this.options.bypassDisabled === true;
    const decision = decidePermission({
      mode: barred ? 'default' : this.currentMode,
      allow: this.options.allow,
      ...(this.options.ask ? { ask: this.options.ask } : {}),
      deny: this.options.deny,
      sessionAllowed: this.sessionAllowed,
      sessionRules: this.sessionRules,
      tool,
      input,
      cwd: this.options.cwd,
      readOnlyFolders: this.protectedFolders,
    });
    if (!barred || decision.by !== 'mode') return decision;
    return {
      ...decision,
      reason: `${decision.reason} (bypass is disabled: permissions.disableBypassPermissionsMode)`,
    };
  }

  /** Feeds one log event; called for every event of the session, old and new, in order. */
  observe(event: LogEvent): void {
    if (isEvent(event, 'approval.decided') && isPermissionMode(event.data.mode))
      this.planModes.set(event.data.callId, event.data.mode);
    if (isEvent(event, 'tool.call')) {
      this.openCalls.set(event.data.callId, { name: event.data.name, input: event.data.input });
    } else if (isEvent(event, 'tool.result')) {
      this.openCalls.delete(event.data.callId);
    } else if (isEvent(event, 'mode.changed')) {
      if (isPermissionMode(event.data.to)) this.currentMode = event.data.to;
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

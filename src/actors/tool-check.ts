import { fromCallback } from 'xstate';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { CallCheck, ToolBatchEvent, ToolCheckCommand } from '../machines/tool-batch.ts';
import type { PermissionGate } from '../permissions/gate.ts';
import { type AnyTool, isConcurrencySafe } from '../tools/define-tool.ts';
import { checkToolInput } from '../tools/tool-input.ts';
import { unknownToolMessage } from '../tools/unknown-tool.ts';
import type { DependenciesOf } from './dependencies.ts';

export type ToolCheckDeps = {
  tools: ReadonlyMap<string, AnyTool>;
  permissions: PermissionGate;
  /**
   * `preTool` hooks are asked about calls before they run: a call the mode says needs approval is left to
   * them even when nobody can approve (headless), since a hook may allow it (Claude Code asks its PreToolUse
   * hooks before the permission prompt). Their verdict (actors/pre-tool-verdict.ts) denies it if none does.
   */
  hooksDecideAsks?: boolean;
};

/** The reason a call that needs approval is denied when nobody can give it. */
export function headlessDenial(reason: string): { content: string; reason: string } {
  const full = `${reason}; nobody can approve it in this session (headless), so it was denied`;
  return {
    reason: full,
    content: `Permission denied: ${full}. Do not retry this call; choose another approach or stop and explain.`,
  };
}

/** Checks every call of a batch before anything runs: known tool, valid arguments, permission. */
export function checkCall(
  deps: ToolCheckDeps,
  call: { id: string; name: string; input: unknown },
): CallCheck {
  const tool = deps.tools.get(call.name);
  if (!tool) {
    return reject(call, unknownToolMessage(call.name, deps.tools.keys()), { unknownTool: true });
  }
  if (typeof call.input === 'string') {
    return reject(
      call,
      `Invalid arguments for ${call.name}: not a JSON object (${JSON.stringify(call.input.slice(0, 200))}).`,
    );
  }
  const checked = checkToolInput(tool.input, call.input ?? {});
  if (!checked.ok) return reject(call, `Invalid arguments for ${call.name}:\n${checked.message}`);
  const parsed = { data: checked.value };
  const verdict = deps.permissions.decide(tool, parsed.data);
  if (verdict.decision === 'deny') {
    return {
      ...reject(call, `Permission denied: ${verdict.reason}`, { outcome: 'denied' }),
      input: parsed.data,
      decision: { outcome: 'deny', by: verdict.by, reason: verdict.reason },
    };
  }
  if (verdict.decision === 'ask') {
    const asked = {
      callId: call.id,
      input: parsed.data,
      safe: false,
      verdict: 'ask' as const,
      askedBy: verdict.by,
      askReason: verdict.reason,
    };
    if (deps.permissions.canAsk || (deps.hooksDecideAsks === true && verdict.by === 'mode')) return asked;
    const { reason, content } = headlessDenial(verdict.reason);
    return {
      ...reject(call, content, { outcome: 'denied' }),
      input: parsed.data,
      decision: { outcome: 'deny', by: 'headless', reason },
    };
  }
  return {
    callId: call.id,
    input: parsed.data,
    safe: isConcurrencySafe(tool, parsed.data),
    verdict: 'run',
    decision: { outcome: 'allow', by: verdict.by, reason: verdict.reason },
  };
}

function reject(
  call: { id: string; input: unknown },
  content: string,
  extra: { unknownTool?: boolean; outcome?: 'error' | 'denied' } = {},
): CallCheck {
  return {
    callId: call.id,
    input: call.input,
    safe: false,
    verdict: 'reject',
    outcome: extra.outcome ?? 'error',
    content,
    ...(extra.unknownTool ? { unknownTool: true } : {}),
  };
}

/** The batch's check actor: lives as long as the batch and answers every `check` at once with `batch.checked`. */
export function createToolCheckActor(depsOf: DependenciesOf<ToolCheckDeps>) {
  return fromCallback<ToolCheckCommand, AgentKeyed>(({ input, sendBack, receive }) => {
    const deps = depsOf(input.agentKey);
    receive((command) => {
      sendBack({
        type: 'batch.checked',
        checks: command.calls.map((call) => checkCall(deps, call)),
      } satisfies ToolBatchEvent);
    });
  });
}

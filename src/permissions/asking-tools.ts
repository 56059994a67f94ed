// Which tools would ask for approval under a mode and its rules: what a system with nobody to approve must
// be told at creation, instead of finding out from denied calls (see the `approve` option).
import type { ToolAccess } from '../tools/define-tool.ts';
import { decideByMode } from './decide.ts';
import { exitPlanModeName, type PermissionMode } from './modes.ts';
import { formatRule, namesTool, type PermissionRule, parseRule } from './rules.ts';

/** A tool whose calls ask for approval, and why. */
export type AskingTool = { tool: string; reason: string };

/**
 * The tools whose calls ask (rather than run or being denied) as far as the mode and the rules that name
 * the whole tool tell: a deny rule naming the tool denies it, an ask rule naming it (with or without a
 * pattern) asks, an allow rule naming the whole tool allows it, otherwise the mode decides by its access.
 * In plan mode the plan itself asks (`exit_plan_mode`, which only the host accepts). A command that asks
 * because the reader cannot tell what it runs under a deny rule is not foreseen here: it is denied where
 * nobody can approve, as every ask is.
 */
export function askingTools(
  tools: readonly { name: string; access: ToolAccess }[],
  settings: {
    mode: PermissionMode;
    allow: readonly PermissionRule[];
    ask: readonly PermissionRule[];
    deny: readonly PermissionRule[];
  },
): AskingTool[] {
  const [allow, ask, deny] = [settings.allow, settings.ask, settings.deny].map((rules) =>
    rules.map(parseRule),
  );
  const asking = tools.flatMap((tool): AskingTool[] => {
    const names = (rule: { tool: string }) => namesTool(rule.tool, tool.name);
    if (deny!.some((rule) => rule.pattern === undefined && names(rule))) return [];
    const asked = ask!.find(names);
    if (asked !== undefined) {
      if (decideByMode(settings.mode, tool.access).decision === 'deny') return [];
      return [{ tool: tool.name, reason: `the rule ${formatRule(asked)} asks` }];
    }
    if (allow!.some((rule) => rule.pattern === undefined && names(rule))) return [];
    const byMode = decideByMode(settings.mode, tool.access);
    return byMode.decision === 'ask' ? [{ tool: tool.name, reason: byMode.reason }] : [];
  });
  if (settings.mode !== 'plan') return asking;
  return [...asking, { tool: exitPlanModeName, reason: 'a plan waits for the host to accept it' }];
}

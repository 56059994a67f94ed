// `/agents` in the chat: the background agents the session's model started, each with its label, agent
// type, status and stop reason, and what it handed back; `/agents <id>` shows one in full, with its prompt
// and the mail between it and the session. Statuses and results come from the runtime's handles
// (`agent.children()`); the prompt and the mail from the logs, read the way the inspector reads them.
import { projectAgentTree } from '../../inspector/agent-tree.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import type { ChildAgent } from '../../runtime/background/child-agent.ts';
import type { RunResult } from '../../runtime/turn-result.ts';
import { offeredToolNames } from '../../session/mail-log.ts';
import type { LogEvent } from '../../session/types.ts';

/** How much of a result the list shows: its first lines, cut at this many characters. */
const listedResultLength = 200;

/** The lines `/agents` (no `id`) or `/agents <id>` prints. */
export async function agentsReport(agent: Agent, id?: string): Promise<string[]> {
  const children = agent.children();
  if (id !== undefined) {
    const child = children.find((candidate) => candidate.id === id);
    if (!child)
      return [
        `No background agent ${id} in this session.${children.length > 0 ? ' /agents lists them.' : ''}`,
      ];
    return oneAgent(agent, child);
  }
  if (children.length === 0) {
    const offered = offeredToolNames(agent.log()).includes('spawn_agent');
    return [
      offered
        ? 'No background agents in this session yet.'
        : 'No background agents: this chat does not offer them (start it with --background-agents).',
    ];
  }
  const lines = [`${children.length} background agent${children.length === 1 ? '' : 's'}:`];
  for (const child of children) {
    lines.push(`  ${child.id}  ${statusOf(child, await resultOf(child))}  ${labelOf(child)}`);
    const shown = await shownResult(child, listedResultLength);
    if (shown !== undefined) lines.push(...indent(shown, '    '));
  }
  lines.push('/agents <id> shows one in full.');
  return lines;
}

async function oneAgent(agent: Agent, child: ChildAgent): Promise<string[]> {
  const result = await resultOf(child);
  const view = projectAgentTree(
    new Map<string, readonly LogEvent[]>([
      [agent.id, agent.log()],
      [child.id, child.log()],
    ]),
  );
  const node = view.agents.find((candidate) => candidate.id === child.id);
  const lines = [
    `Agent ${child.id}: ${labelOf(child)}`,
    `  status: ${statusOf(child, result)}${child.wait ? '' : ' (its parent does not wait for it)'}`,
  ];
  if (node?.prompt !== undefined) lines.push('  prompt:', ...indent(node.prompt, '    '));
  const mail = view.mail.filter((item) => item.kind === 'message');
  if (mail.length > 0) lines.push('  messages:');
  for (const item of mail) {
    const who = item.from === child.id ? 'from it' : item.byHost ? 'to it (from the host)' : 'to it';
    lines.push(`    ${who}:`, ...indent(item.text, '      '));
  }
  const shown = await shownResult(child);
  if (shown !== undefined) lines.push('  result:', ...indent(shown, '    '));
  return lines;
}

/** Its result once its turn has ended (never waits for a running child); undefined while it runs. */
async function resultOf(child: ChildAgent): Promise<RunResult | undefined> {
  if (child.status === 'running') return undefined;
  // A child disposed before its turn could end has no result: its status says what happened.
  return child.result.catch(() => undefined);
}

function statusOf(child: ChildAgent, result: RunResult | undefined): string {
  if (child.status === 'running') return 'running';
  if (child.status === 'stopped') return 'stopped (by its parent; no result)';
  return result ? `finished (${result.reason})` : 'finished';
}

function labelOf(child: ChildAgent): string {
  return child.agentType !== undefined ? `[${child.agentType}] ${child.description}` : child.description;
}

/** What a finished child handed back: a typed one's value as JSON, else its text; cut at `max` characters. */
async function shownResult(child: ChildAgent, max?: number): Promise<string | undefined> {
  if (child.status !== 'finished') return undefined;
  const result = await resultOf(child);
  if (!result) return undefined;
  const text =
    result.output !== undefined
      ? JSON.stringify(result.output, null, max === undefined ? 2 : undefined)
      : result.text || '(no text)';
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, max - 1)}… (${text.length} characters; /agents ${child.id} shows it all)`;
}

function indent(text: string, by: string): string[] {
  return text.split('\n').map((line) => by + line);
}

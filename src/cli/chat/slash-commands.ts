import type { CompactResult } from '../../machines/compaction-types.ts';
import { type PermissionMode, permissionModes } from '../../permissions/modes.ts';
import { estimateCost, recordedPrices } from '../../providers/prices.ts';
import { emptyUsage, type Usage } from '../../providers/types.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import { project } from '../../session/projection.ts';
import { isEvent, type LogEvent } from '../../session/types.ts';
import { formatDollars } from '../terminal/render.ts';
import { agentsReport } from './agents-report.ts';

/** What slash commands may do to the chat. */
export interface SlashContext {
  readonly agent: Agent;
  /** The permission mode the agent runs in now. */
  readonly mode: PermissionMode;
  readonly isRunning: boolean;
  say(text: string): void;
  setStates(on: boolean): void;
  setMode(mode: PermissionMode): Promise<void>;
  setModel(name: string): Promise<void>;
  resumeSession(idOrPath: string): Promise<void>;
  startInspector(): Promise<string>;
  exit(): Promise<void>;
}

const help = [
  '/compact [instructions]  summarise the older part of the conversation now',
  `/mode [mode]             show the permission mode, or change it (${permissionModes.join(', ')})`,
  '/model <name>            use another model of the same provider',
  '/cost                    tokens of this session so far (cache split) and their price',
  '/states on|off           show or hide the machines\u2019 state changes',
  '/agents [id]             the background agents and their results (one in full)',
  '/inspect                 start the inspector on this session and print its address',
  '/resume <id>             continue another session of this workspace',
  '/help                    this list',
  '/exit                    leave (Ctrl-C twice or Ctrl-D too); the session is kept',
  'Esc cancels a running turn; a line typed while it runs steers it.',
];

/** Runs one slash command; a usage mistake is said, not thrown. */
export async function runSlashCommand(chat: SlashContext, text: string): Promise<void> {
  const [name = '', ...words] = text.slice(1).trim().split(/\s+/);
  const argument = words.join(' ');
  switch (name) {
    case 'help':
    case '?':
      for (const entry of help) chat.say(entry);
      return;
    case 'exit':
    case 'quit':
      return chat.exit();
    case 'cost':
      chat.say(costReport(chat.agent));
      return;
    case 'states':
      if (argument !== 'on' && argument !== 'off') return chat.say('Usage: /states on|off');
      chat.setStates(argument === 'on');
      chat.say(`State changes ${argument === 'on' ? 'shown' : 'hidden'}.`);
      return;
    case 'mode': {
      if (argument === '') {
        return chat.say(`Mode: ${chat.mode} (change it with /mode ${permissionModes.join('|')})`);
      }
      const mode = permissionModes.find((known) => known === argument);
      if (!mode) return chat.say(`Usage: /mode [${permissionModes.join('|')}]`);
      await chat.setMode(mode);
      return;
    }
    case 'model':
      if (argument === '') return chat.say('Usage: /model <name>');
      await chat.setModel(argument);
      return;
    case 'resume':
      if (argument === '') return chat.say('Usage: /resume <session id or file>');
      await chat.resumeSession(argument);
      return;
    case 'agents':
      for (const text of await agentsReport(chat.agent, argument === '' ? undefined : argument))
        chat.say(text);
      return;
    case 'inspect':
      chat.say(`Inspector: ${await chat.startInspector()}  (it stops when you leave)`);
      return;
    case 'compact': {
      chat.say('(compacting: the model summarises the older part of the conversation…)');
      const agent = chat.agent;
      const result = await agent.compact(argument ? { instructions: argument } : {});
      chat.say(compactReport(result, agent.log()));
      return;
    }
    default:
      chat.say(`Unknown command /${name}. /help lists the commands.`);
  }
}

/**
 * `/cost`: the session's tokens with the cache split (always, zeros too), the estimated price when the
 * session recorded its model's prices (see src/providers/prices.ts: list prices, dated) or `unknown price`
 * (never a guess), and the share of input read from the cache.
 */
export function costReport(agent: Agent): string {
  const usage = sessionUsage(agent);
  const start = agent.log()[0];
  const config = start && isEvent(start, 'session.start') ? start.data.config : {};
  const prices = recordedPrices(config);
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const share =
    input > 0 ? ` · ${Math.round((usage.cacheReadTokens / input) * 100)}% of input read from cache` : '';
  const tokens = [
    `in ${usage.inputTokens}`,
    `cache write ${usage.cacheWriteTokens}`,
    `cache read ${usage.cacheReadTokens}`,
    `out ${usage.outputTokens}`,
  ].join(' · ');
  const price = prices
    ? `≈ ${formatDollars(estimateCost(usage, prices))}`
    : `unknown price for ${String(config.model)} (no list price for this model and server: tokens only)`;
  return `This session so far: tokens ${tokens} · ${price}${share}`;
}

/** Characters a token stands for in the estimate of the context after a compaction (English text and code). */
const charactersPerToken = 4;

/**
 * `/compact`'s answer: the tokens the context held before (as the last request reported them) and about
 * how many after. The count after is an estimate, said as one: the text the summary replaced, less the
 * summary, at four characters a token; the next request reports the real count.
 */
export function compactReport(result: CompactResult, log: readonly LogEvent[]): string {
  if (!result.compacted) return `Nothing compacted (${result.reason}).`;
  const compaction = log.findLast((event) => event.type === 'compaction');
  const size = (events: readonly LogEvent[]) =>
    JSON.stringify(project(events, { system: '', tools: [] }).messages).length;
  const removed =
    compaction === undefined ? 0 : size(log.filter((event) => event.seq < compaction.seq)) - size(log);
  const before = result.tokensBefore;
  const after = Math.min(before, Math.max(0, before - Math.round(removed / charactersPerToken)));
  const count = (tokens: number) => tokens.toLocaleString('en-US');
  return (
    `Compacted: the context held ${count(before)} tokens before, about ${count(after)} after ` +
    '(estimated; the next request reports it exactly).'
  );
}

/** The tokens of every turn of the session so far (from the log's `turn.end` events). */
export function sessionUsage(agent: Agent): Usage {
  const total = { ...emptyUsage };
  for (const event of agent.log()) {
    if (!isEvent(event, 'turn.end')) continue;
    const usage = event.data.usage;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cacheReadTokens += usage.cacheReadTokens;
    total.cacheWriteTokens += usage.cacheWriteTokens;
  }
  return total;
}

import { type PermissionMode, permissionModes } from '../../permissions/modes.ts';
import { recordedPrices } from '../../providers/prices.ts';
import { emptyUsage, type Usage } from '../../providers/types.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import { isEvent } from '../../session/types.ts';
import { formatUsage } from '../terminal/render.ts';
import { agentsReport } from './agents-report.ts';

/** What slash commands may do to the chat. */
export interface SlashContext {
  readonly agent: Agent;
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
  `/mode <mode>             change the permission mode (${permissionModes.join(', ')})`,
  '/model <name>            use another model of the same provider',
  '/cost                    tokens used in this session so far',
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
      const mode = permissionModes.find((known) => known === argument);
      if (!mode) return chat.say(`Usage: /mode <${permissionModes.join('|')}>`);
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
      const result = await chat.agent.compact(argument ? { instructions: argument } : {});
      chat.say(
        result.compacted
          ? `Compacted: the context held ${result.tokensBefore} tokens before.`
          : `Nothing compacted (${result.reason}).`,
      );
      return;
    }
    default:
      chat.say(`Unknown command /${name}. /help lists the commands.`);
  }
}

/**
 * `/cost`: the session's tokens with the cache split, the share of input read from the cache, and the
 * estimated price when the session recorded its model's prices.
 */
export function costReport(agent: Agent): string {
  const usage = sessionUsage(agent);
  const start = agent.log()[0];
  const config = start && isEvent(start, 'session.start') ? start.data.config : {};
  const prices = recordedPrices(config);
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const share =
    input > 0 ? ` · ${Math.round((usage.cacheReadTokens / input) * 100)}% of input read from cache` : '';
  const unknown = prices ? '' : ` (no prices known for ${String(config.model)}: tokens only)`;
  return `This session so far: ${formatUsage(usage, prices)}${share}${unknown}`;
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

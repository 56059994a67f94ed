// What the chat shows of its open agent: the transcript (without echoing typed tasks), the live line of a
// running tool, and the status line after each turn.
import type { Usage } from '../../providers/types.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import type { AgentSystem } from '../../runtime/create-agent-system.ts';
import { type CliIo, wantsColor } from '../terminal/io.ts';
import { attachLiveView, type LiveView } from '../terminal/live-view.ts';
import { formatUsage } from '../terminal/render.ts';
import type { StatusLine } from '../terminal/status-line.ts';
import { ToolActivity } from '../terminal/tool-activity.ts';

/** The chat's view of one agent. Contract: `stop()` after the agent's system was disposed. */
export type ChatView = { stop(): Promise<void>; setStates(on: boolean): void };

/**
 * Attaches the transcript and the live tool line to `agent`, writing through `status` (`io.stdout` is its
 * writer). Elapsed times come from the system's clock, the one that stamped the log.
 */
export function attachChatView(options: {
  system: AgentSystem;
  agent: Agent;
  io: CliIo;
  status: StatusLine;
  states: boolean;
}): ChatView {
  const { system, agent, io, status } = options;
  const activity = new ToolActivity(status, {
    terminal: io.stdout.isTTY === true,
    now: () => system.clock.now(),
  });
  const view: LiveView = attachLiveView({
    system,
    agent,
    out: io.stdout,
    color: wantsColor(io.stdout, io.env),
    json: false,
    typedInput: true,
    states: options.states,
    onEvent: (event) => activity.event(event),
  });
  return {
    stop: async () => {
      await view.stop();
      activity.stop();
    },
    setStates: (on) => view.setStates(on),
  };
}

/** The chat's one-line status: mode, model, tokens so far and how full the context is. */
export function chatStatus(
  agent: { snapshot(): { contextUsage: { usedTokens: number; contextWindow: number } } },
  mode: string,
  model: string,
  usage?: Usage,
): string {
  const { usedTokens, contextWindow } = agent.snapshot().contextUsage;
  const share = contextWindow > 0 ? ` (${Math.round((usedTokens / contextWindow) * 100)}%)` : '';
  const tokens = usage ? ` · ${formatUsage(usage)}` : '';
  return `[mode ${mode} · ${model}${tokens} · context ${usedTokens.toLocaleString('en-US')} / ${contextWindow.toLocaleString('en-US')}${share}]`;
}

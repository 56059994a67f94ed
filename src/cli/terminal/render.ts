import type { LiveEvent } from '../../actors/live-event.ts';
import { estimateCost, type ModelPrices, recordedPrices } from '../../providers/prices.ts';
import type { Usage } from '../../providers/types.ts';
import { contextTokens } from '../../session/context-tokens.ts';
import { isEvent, type LogEvent, type LogEventData } from '../../session/types.ts';
import { paintDiff } from './approval-view.ts';
import { painter, type TextOut } from './io.ts';
import { vendorContentLines } from './vendor-content.ts';

type Style = Parameters<ReturnType<typeof painter>>[0];

/** Lines of a tool result shown under it; a longer one is folded. */
const resultLines = 4;
/** Lines of a diff (an edit's result) shown under it. */
const diffLines = 40;
/** Characters of one shown line. */
const lineWidth = 100;

/** `text` cut to `width` characters with an ellipsis. */
export function truncate(text: string, width = lineWidth): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/**
 * A short, one-line description of a tool call's input for people: the path, pattern or command for the
 * built-in tools, compact JSON for anything else.
 */
export function summarizeToolInput(name: string, input: unknown, width = 80): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const text = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined);
  const pieces: (string | undefined)[] = (() => {
    switch (name) {
      case 'read_file':
      case 'write_file':
      case 'list_dir':
        return [text('path') ?? (name === 'list_dir' ? '.' : undefined)];
      case 'edit_file':
        return [text('path'), fields.replace_all === true ? '(replace all)' : undefined];
      case 'glob':
      case 'grep':
        return [text('pattern'), text('path') ? `in ${text('path')}` : undefined];
      case 'bash':
        return [text('command')];
      case 'task':
        return [text('description')];
      case 'skill':
        return [text('name')];
      default:
        return [JSON.stringify(input) ?? ''];
    }
  })();
  const summary = pieces.filter((piece) => piece !== undefined).join(' ');
  return truncate(summary.replaceAll('\n', ' ⏎ '), width);
}

/**
 * `tokens in 120 · cache write 0 · cache read 900 · out 45 · ≈ $0.0012`: input apart from the cache, the
 * cache split (when the session used the cache), output, and the estimate when the prices are known.
 */
export function formatUsage(usage: Usage | undefined, prices?: ModelPrices): string {
  if (!usage) return 'no usage reported';
  const parts = [`in ${usage.inputTokens}`];
  if (usage.cacheReadTokens > 0 || usage.cacheWriteTokens > 0) {
    parts.push(`cache write ${usage.cacheWriteTokens}`, `cache read ${usage.cacheReadTokens}`);
  }
  parts.push(`out ${usage.outputTokens}`);
  if (prices) parts.push(`≈ ${formatDollars(estimateCost(usage, prices))}`);
  return `tokens ${parts.join(' · ')}`;
}

/** Dollars with four decimals under a dollar (agent steps cost fractions of a cent), else two. */
export function formatDollars(dollars: number): string {
  return dollars < 1 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}

/**
 * Renders live events (or the events of a recorded log) as a compact terminal transcript. Streamed text is
 * written as it arrives; every other event is one line, with a few indented lines for tool results.
 */
export class TranscriptRenderer {
  private midLine = false;
  private readonly streamed = new Set<string>();
  private readonly toolNames = new Map<string, string>();
  private readonly stepsInTurn = new Map<number, number>();
  /** How full the context is: from `context.usage` live, or from the log (the window in session.start). */
  private context: { used: number; window: number | undefined } = { used: 0, window: undefined };
  /** The prices the session recorded, for the estimate on each turn's line. */
  private prices: ModelPrices | undefined;

  private readonly painted: ReturnType<typeof painter>;

  /**
   * `typedInput`: the person's tasks are already on the screen as they typed them (the chat), so their
   * queueing and their `user.message` are not echoed again; steers and injected input still are.
   */
  constructor(
    private readonly out: TextOut,
    color: boolean,
    private readonly options: { typedInput?: boolean } = {},
  ) {
    this.painted = painter(color);
  }

  /** Renders one live event. */
  event(live: LiveEvent): void {
    switch (live.type) {
      case 'model.delta':
        this.streamed.add(`${live.turn}.${live.step}`);
        this.out.write(live.text);
        this.midLine = !live.text.endsWith('\n');
        return;
      case 'thinking.delta':
        this.out.write(this.paint('dim', live.text));
        this.midLine = !live.text.endsWith('\n');
        return;
      case 'tool.progress':
        // Tool output arrives whole in tool.result; streaming it too would print it twice.
        return;
      case 'runtime.error':
        this.print(this.paint('red', `runtime error: ${live.message}`));
        return;
      case 'context.usage':
        this.context = { used: live.usedTokens, window: live.contextWindow };
        return;
      case 'compaction.start':
        this.print(this.paint('dim', '(compacting the conversation: the model summarises its older part…)'));
        return;
      case 'log':
        this.logEvent(live.event);
        return;
    }
  }

  /** Renders a change of state of one machine, e.g. `turn: preStep → stepping`. */
  transition(machine: string, from: string | undefined, to: string): void {
    this.print(this.paint('dim', `  ${machine}: ${from ?? '(new)'} → ${to}`));
  }

  /** Writes `text` on a line of its own, ending streamed text first. */
  print(text: string): void {
    // A shared writer knows about text others put on the line (a notice, a prompt) as well.
    if (this.lineIsOpen) this.out.write('\n');
    this.midLine = false;
    this.out.write(`${text}\n`);
  }

  private get lineIsOpen(): boolean {
    return this.out.lineOpen ?? this.midLine;
  }

  paint(style: Style, text: string): string {
    return this.painted(style, text);
  }

  private logEvent(event: LogEvent): void {
    if (isEvent(event, 'session.start')) {
      const { config } = event.data;
      const described = `${String(config.provider)}/${String(config.model)}, mode ${String(config.permissionMode)}`;
      if (typeof config.contextWindow === 'number') this.context.window = config.contextWindow;
      this.prices = recordedPrices(config);
      this.print(this.paint('dim', `session ${event.data.agentId} (${described})`));
    } else if (isEvent(event, 'inbox.queued')) {
      if (this.options.typedInput) return;
      this.print(
        this.paint('magenta', `» queued ${event.data.channel}: ${truncate(event.data.message, 80)}`),
      );
    } else if (isEvent(event, 'turn.start')) {
      this.print(this.paint('bold', `── turn ${event.turn} ──`));
    } else if (isEvent(event, 'user.message')) {
      if (this.options.typedInput && event.data.channel === 'followup') return;
      this.print(
        this.paint('blue', `› ${event.data.channel}: ${truncate(event.data.content.split('\n')[0]!)}`),
      );
    } else if (isEvent(event, 'step.start')) {
      this.stepsInTurn.set(event.turn ?? 0, event.step ?? 0);
      this.print(this.paint('dim', `· step ${event.step} (${event.data.model})`));
    } else if (isEvent(event, 'assistant.message')) {
      this.assistantMessage(event);
    } else if (isEvent(event, 'assistant.attempt')) {
      const { error, attempt, retryInMs } = event.data;
      const retry =
        retryInMs === undefined
          ? `gave up after attempt ${attempt}`
          : `retrying (attempt ${attempt + 1}) in ${(retryInMs / 1000).toFixed(1)}s`;
      this.print(
        this.paint('yellow', `! model error ${error.kind}: ${truncate(error.message, 80)}; ${retry}`),
      );
    } else if (isEvent(event, 'tool.call')) {
      this.toolNames.set(event.data.callId, event.data.name);
      const summary = summarizeToolInput(event.data.name, event.data.input, 400);
      this.print(`${this.paint('cyan', `→ ${event.data.name}`)} ${summary}`);
    } else if (isEvent(event, 'approval.asked')) {
      this.print(this.paint('yellow', `? ${this.nameOf(event.data.callId)} needs approval`));
    } else if (isEvent(event, 'approval.decided')) {
      this.approvalDecided(event.data);
    } else if (isEvent(event, 'tool.result')) {
      this.toolResult(event.data);
    } else if (isEvent(event, 'output.checked')) {
      const { valid, attempt, error = '' } = event.data;
      const said = valid ? '✓ passed' : `✗ failed: ${truncate(error.replaceAll('\n', ' '), 100)}`;
      this.print(this.paint(valid ? 'green' : 'yellow', `output check ${attempt} ${said}`));
    } else if (isEvent(event, 'turn.end')) {
      const { reason, usage, cause, error } = event.data;
      const steps = this.stepsInTurn.get(event.turn ?? 0) ?? 0;
      const why = cause ? `${reason} (${cause})` : error ? `${reason} (${error.kind})` : reason;
      const style = reason === 'completed' ? 'green' : 'red';
      this.print(
        this.paint(
          style,
          `■ turn ${event.turn} ended: ${why} · ${steps} steps · ${formatUsage(usage, this.prices)}${this.contextNote()}`,
        ),
      );
    } else if (isEvent(event, 'compaction')) {
      const { replaces, trigger, tokensBefore } = event.data;
      this.print(
        this.paint(
          'dim',
          `(compacted events ${replaces.join('–')}, ${trigger}; the context held ${tokensBefore} tokens)`,
        ),
      );
    } else if (isEvent(event, 'hook.decided')) {
      const { point, hook, outcome, reason } = event.data;
      const why = reason ? `: ${truncate(reason, 80)}` : '';
      this.print(
        this.paint(
          outcome === 'pass' ? 'dim' : 'yellow',
          `⚑ ${point} hook ${truncate(hook, 60)} ${outcome}${why}`,
        ),
      );
      // Claude Code's `systemMessage`: for the person at the terminal, never sent to the model.
      if (event.data.systemMessage) this.print(this.paint('yellow', `  ${event.data.systemMessage}`));
    } else if (isEvent(event, 'agent.spawned')) {
      this.print(this.paint('dim', `(subagent ${event.data.childSessionId} started)`));
    } else if (isEvent(event, 'mode.changed')) {
      const { from, to, by } = event.data;
      const why =
        by === 'plan' ? 'the plan was accepted' : by === 'user' ? 'set by the user' : 'set by the host';
      this.print(this.paint('magenta', `» mode ${from} → ${to} (${why})`));
    } else if (isEvent(event, 'session.end')) {
      this.print(this.paint('dim', `session ended (${event.data.reason})`));
    }
  }

  /** ` · context 3,812 / 200,000 tokens (2%)`, or nothing before the first answered request. */
  private contextNote(): string {
    const { used, window } = this.context;
    if (used === 0) return '';
    const count = (n: number) => n.toLocaleString('en-US');
    if (window === undefined) return ` · context ${count(used)} tokens`;
    return ` · context ${count(used)} / ${count(window)} tokens (${Math.round((used / window) * 100)}%)`;
  }

  private assistantMessage(event: LogEvent & { type: 'assistant.message' }): void {
    // A recorded log has no live `context.usage`: its messages' usage says the same.
    if (!event.data.interrupted) this.context.used = contextTokens(event.data.usage as Usage);
    const { text, interrupted, providerParts, citations } = event.data as LogEventData['assistant.message'];
    // Live runs already streamed the text; a replayed log has no deltas, so the text is printed here.
    if (!this.streamed.has(`${event.turn}.${event.step}`) && text !== '') this.print(text);
    else if (this.lineIsOpen) this.print('');
    if (interrupted) this.print(this.paint('yellow', '(interrupted)'));
    for (const line of vendorContentLines(providerParts, citations)) {
      this.print(this.paint('dim', line));
    }
  }

  private approvalDecided(data: { callId: string; outcome: string; by: string; reason?: string }): void {
    // Decisions by mode or rule are routine (every call in bypass mode has one): only show the notable ones.
    if (data.outcome !== 'deny' && (data.by === 'mode' || data.by === 'rule')) return;
    const verdict =
      data.outcome === 'deny' ? 'denied' : data.outcome === 'allow' ? 'allowed' : 'allowed for session';
    const reason = data.reason ? `: ${truncate(data.reason, 80)}` : '';
    const style = data.outcome === 'deny' ? 'yellow' : 'green';
    this.print(this.paint(style, `  ${this.nameOf(data.callId)} ${verdict} (by ${data.by})${reason}`));
  }

  private toolResult(data: { callId: string; outcome: string; content: string }): void {
    const ok = data.outcome === 'ok';
    const lines = data.content.replace(/\n+$/, '').split('\n');
    const head = `${ok ? '←' : '✗'} ${this.nameOf(data.callId)} ${data.outcome}`;
    this.print(this.paint(ok ? 'green' : 'yellow', `${head} (${lines.length} lines)`));
    const isDiff = ok && lines.some((text) => text.startsWith('@@ '));
    const shown = isDiff ? diffLines : resultLines;
    const first = lines.slice(0, shown).map((text) => truncate(text));
    const body = isDiff
      ? paintDiff(first, (style, text) => this.paint(style, text))
      : first.map((text) => this.paint('dim', text));
    for (const text of body) this.print(`    ${text}`);
    if (lines.length > shown)
      this.print(this.paint('dim', `    … ${lines.length - shown} more lines (folded)`));
  }

  private nameOf(callId: string): string {
    return this.toolNames.get(callId) ?? callId;
  }
}

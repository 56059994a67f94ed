import type { LiveEvent } from '../../actors/live-event.ts';
import { isEvent } from '../../session/types.ts';
import { summarizeToolInput } from './render.ts';
import type { StatusLine } from './status-line.ts';

const spinner = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often the live line is redrawn (a person's clock: the elapsed seconds and the spinner). */
const tickMs = 120;

type Running = { name: string; summary: string; startedAt: number };

/**
 * The live line under the transcript while a tool runs: `⠹ bash sleep 4 · 3s` (the first tool running,
 * its argument summary, the time since its `tool.started`, and how many more run beside it). Times come
 * from `now`, the agent system's clock, which stamped the log events. On a terminal only: elsewhere the
 * transcript's plain lines say it all, with no spinner and no redraws. Contract: feed it the agent's live
 * events (`event`), and call `stop()` when the session closes.
 */
export class ToolActivity {
  private readonly calls = new Map<string, { name: string; summary: string }>();
  private readonly running = new Map<string, Running>();
  private stopTicking: (() => void) | undefined;
  private frame = 0;

  /**
   * `now`: the clock the log's stamps came from. `every`: calls `tick` every `ms` until the returned stop
   * is called (default a `setInterval` that never keeps the process alive).
   */
  constructor(
    private readonly status: StatusLine,
    private readonly options: {
      terminal: boolean;
      now: () => number;
      every?: (tick: () => void, ms: number) => () => void;
    },
  ) {}

  event(live: LiveEvent): void {
    if (!this.options.terminal || live.type !== 'log') return;
    const event = live.event;
    if (isEvent(event, 'tool.call')) {
      const { callId, name, input } = event.data;
      this.calls.set(callId, { name, summary: summarizeToolInput(name, input, 60) });
    } else if (isEvent(event, 'tool.started')) {
      const call = this.calls.get(event.data.callId);
      if (call) this.running.set(event.data.callId, { ...call, startedAt: event.ts });
    } else if (isEvent(event, 'tool.result')) {
      this.running.delete(event.data.callId);
      this.calls.delete(event.data.callId);
    } else if (isEvent(event, 'turn.end') || isEvent(event, 'session.end')) {
      this.running.clear();
      this.calls.clear();
    } else {
      return;
    }
    this.update();
  }

  stop(): void {
    this.running.clear();
    this.update();
  }

  private update(): void {
    if (this.running.size === 0) {
      this.stopTicking?.();
      this.stopTicking = undefined;
      this.status.show(undefined);
      return;
    }
    // The first draw waits for the first tick: a tool done sooner never flickers a line.
    this.stopTicking ??= (this.options.every ?? everyInterval)(() => this.redraw(), tickMs);
  }

  private redraw(): void {
    const [first] = this.running.values();
    if (!first) return;
    this.frame = (this.frame + 1) % spinner.length;
    const others = this.running.size - 1;
    const frame = spinner[this.frame]!;
    this.status.show(
      liveToolLine(first, { now: this.options.now(), others, frame, width: this.status.width }),
    );
  }
}

function everyInterval(tick: () => void, ms: number): () => void {
  const timer = setInterval(tick, ms);
  // The live line never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `⠹ bash sleep 4 · 3s (+1 more running)`: one running tool as its live line shows it, within `width`
 * characters: the argument summary is what gets cut, so the name and the seconds always show.
 */
export function liveToolLine(
  tool: Running,
  shown: { now: number; others: number; frame: string; width: number },
): string {
  const seconds = Math.max(0, Math.floor((shown.now - tool.startedAt) / 1000));
  const more = shown.others > 0 ? ` (+${shown.others} more running)` : '';
  const head = `${shown.frame} ${tool.name} `;
  const tail = ` · ${seconds}s${more}`;
  const room = shown.width - head.length - tail.length;
  const summary =
    tool.summary.length <= room ? tool.summary : room > 1 ? `${tool.summary.slice(0, room - 1)}…` : '';
  return `${head}${summary}${tail}`;
}

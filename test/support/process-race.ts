// Races real processes against each other: N child scripts, each started once, answer the parent's
// messages over IPC. The parent sends every child the same message back to back, so all of them act at
// the same moment (a per-round barrier), and collects one answer from each. A child that does not answer
// in time is killed by pid, and so is every child when the race is closed.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { repoRoot } from './child-run.ts';

/** What a child answers; `type` echoes the request's. */
export type RaceAnswer = { type: string; round: number; [key: string]: unknown };

export type RaceOptions = {
  /** The child script (relative to the repository root), run with `node --import tsx`. */
  script: string;
  args: string[];
  contenders: number;
  /**
   * How long one request may take before every child is killed (default 90 s). Only a wedged child
   * reaches it: under a loaded machine, starting a contender under tsx took over 15 s.
   */
  timeoutMs?: number;
};

type Pending = { resolve: (answer: RaceAnswer) => void; reject: (error: Error) => void };

export class ProcessRace {
  private readonly children: ChildProcess[] = [];
  private readonly pending = new Map<ChildProcess, Pending>();
  private readonly output = new Map<ChildProcess, string>();
  private readonly timeoutMs: number;

  private constructor(options: RaceOptions) {
    this.timeoutMs = options.timeoutMs ?? 90_000;
    for (let index = 0; index < options.contenders; index++) {
      const child = fork(resolve(repoRoot, options.script), [...options.args, String(index)], {
        cwd: repoRoot,
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      this.output.set(child, '');
      const keep = (chunk: Buffer) => this.output.set(child, this.output.get(child) + chunk.toString());
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      child.on('message', (answer) => this.settle(child, answer as RaceAnswer));
      child.on('exit', (code, signal) =>
        this.fail(child, new Error(`contender exited (${code ?? signal}): ${this.output.get(child)}`)),
      );
      this.children.push(child);
    }
  }

  /** Starts the contenders and waits until each has loaded and said it is ready. */
  static async start(options: RaceOptions): Promise<ProcessRace> {
    const race = new ProcessRace(options);
    try {
      await Promise.all(race.children.map((child) => race.answerOf(child)));
    } catch (error) {
      race.close();
      throw error;
    }
    return race;
  }

  /** Sends `message` to every contender back to back and returns their answers, in contender order. */
  async all(message: { type: string; round: number }): Promise<RaceAnswer[]> {
    const answers = this.children.map((child) => this.answerOf(child));
    for (const child of this.children) child.send(message);
    return Promise.all(answers);
  }

  /** Kills every contender by pid. */
  close(): void {
    for (const child of this.children) {
      child.removeAllListeners('exit');
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  private answerOf(child: ChildProcess): Promise<RaceAnswer> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.close();
        reject(
          new Error(`a contender did not answer within ${this.timeoutMs} ms: ${this.output.get(child)}`),
        );
      }, this.timeoutMs);
      this.pending.set(child, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolvePromise(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  private settle(child: ChildProcess, answer: RaceAnswer): void {
    const waiting = this.pending.get(child);
    this.pending.delete(child);
    waiting?.resolve(answer);
  }

  private fail(child: ChildProcess, error: Error): void {
    const waiting = this.pending.get(child);
    this.pending.delete(child);
    waiting?.reject(error);
  }
}

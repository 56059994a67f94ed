// A job task under the supervision chart (machines/supervision.ts), as a background child is: its turn is
// watched, a failure its policy restarts is reported in the job's progress (`task.restarted`), waited out on
// the system's clock, and the task goes on from its own log (`session.restarted` there; an agent that cannot
// go on, its log stopped writing, is resumed from the store and repaired first) until it succeeds, its
// restarts are spent, or the job cancels it.
import { type AnyActorRef, createActor } from 'xstate';
import { fromTask } from '../../actors/from-task.ts';
import { createRetryTimerActor } from '../../actors/timer.ts';
import type { Clock } from '../../core/clock.ts';
import { messageOf } from '../../errors/describe-value.ts';
import {
  type RestartReport,
  type SupervisedFailure,
  type SupervisionEvent,
  type SupervisionInput,
  supervisionMachine,
} from '../../machines/supervision.ts';
import type { SessionLog } from '../../session/session-log.ts';
import type { SupervisionSpec } from '../../session/types.ts';
import type { OutputOptions } from '../../tools/output-schema.ts';
import type { Agent } from '../agent-handle.ts';
import { restartMessage } from '../background/supervisor.ts';
import type { CreateAgentOptions } from '../options.ts';
import type { RunResult } from '../turn-result.ts';

/** What supervising a task needs of the system beyond `createAgent`. */
export type TaskSupervisionHost = {
  clock: Clock;
  resumeAgent(sessionId: string, options: Omit<CreateAgentOptions, 'id'>): Promise<Agent>;
  /** The log of a live agent of the system. */
  logOf(agentId: string): SessionLog | undefined;
};

/** How a supervised task ended: its agent now (a restart may have resumed a new one), the last outcome. */
export type SupervisedEnd = {
  agent: Agent;
  outcome: { result: RunResult } | { error: unknown };
  state: 'done' | 'escalated' | 'stopped';
  restarts: number;
  failure: SupervisedFailure | undefined;
};

export class SupervisedTask {
  private turn: Promise<{ result: RunResult } | { error: unknown }>;
  private actor: AnyActorRef | undefined;
  private stopping = false;

  constructor(
    private agent: Agent,
    private readonly task: {
      host: TaskSupervisionHost;
      policy: SupervisionSpec;
      typed: OutputOptions | undefined;
      options: Omit<CreateAgentOptions, 'id'>;
      report: (report: RestartReport) => void;
    },
  ) {
    this.turn = Promise.resolve({ error: new Error('the task has not run') });
  }

  /** The agent that runs the task now. */
  get current(): Agent {
    return this.agent;
  }

  /**
   * Runs `prompt` under supervision; resolves once the supervision has ended. `from`: what the task's log
   * already holds — restarts spent, and a failure found when the task was taken up (a worker that died
   * mid-turn): then the prompt is not run; that restart is waited out and made first.
   */
  run(
    prompt: string,
    from: Pick<SupervisionInput, 'restarts' | 'pending'> = { restarts: 0 },
  ): Promise<SupervisedEnd> {
    if (!from.pending) this.runTurn(() => this.agent.run(prompt, this.task.typed));
    const logic = supervisionMachine.provide({
      actors: {
        childTurn: fromTask(
          () => this.turn,
          (result): SupervisionEvent => {
            const outcome = result.ok ? result.value : { error: result.error };
            if ('result' in outcome) {
              const { reason, error } = outcome.result;
              return { type: 'child.ended', reason, ...(error ? { error: error.message } : {}) };
            }
            return { type: 'child.crashed', error: messageOf(outcome.error) };
          },
        ),
        restartTimer: createRetryTimerActor(this.task.host.clock),
        childRestart: fromTask(
          (input: { childId: string; attempt: number; failure: SupervisedFailure }) => this.restart(input),
          (result): SupervisionEvent =>
            result.ok
              ? { type: 'child.restarted' }
              : { type: 'child.crashed', error: messageOf(result.error) },
        ),
      },
      actions: { reportRestart: (_, report: RestartReport) => this.task.report(report) },
    });
    const input: SupervisionInput = { childId: this.agent.id, policy: this.task.policy, ...from };
    const actor = createActor(logic, { input });
    this.actor = actor;
    return new Promise((resolve, reject) => {
      actor.subscribe({
        next: (snapshot) => {
          if (snapshot.status !== 'done') return;
          const { restarts, failure } = snapshot.context;
          const state = snapshot.value as SupervisedEnd['state'];
          this.turn.then((outcome) => resolve({ agent: this.agent, outcome, state, restarts, failure }));
        },
        error: reject,
      });
      actor.start();
      if (this.stopping) actor.send({ type: 'supervision.stop' });
    });
  }

  /** The job cancels the task: its turn is cancelled, a restart waited for is not made. */
  stop(): void {
    this.stopping = true;
    this.actor?.send({ type: 'supervision.stop' });
  }

  private runTurn(work: () => Promise<RunResult>): void {
    this.turn = Promise.resolve()
      .then(work)
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
  }

  /** The task's agent, brought back from its log if it cannot go on, is given the task again. */
  private async restart(input: { attempt: number; failure: SupervisedFailure }): Promise<void> {
    const { host, policy, options } = this.task;
    const id = this.agent.id;
    const writes = await host
      .logOf(id)
      ?.flush()
      .then(
        () => true,
        () => false,
      );
    if (!(this.agent.state.startsWith('ready') && writes)) {
      // Its dispose cannot write the log either; the resume repairs what it left open.
      await this.agent.dispose().catch(() => undefined);
      this.agent = await host.resumeAgent(id, options);
      await this.agent.whenIdle();
    }
    if (this.stopping) return;
    const { attempt, failure } = input;
    const error = failure.error !== undefined ? { error: failure.error } : {};
    host
      .logOf(id)
      ?.append({ type: 'session.restarted', data: { attempt, reason: failure.reason, ...error } });
    const text = restartMessage(failure, attempt, policy.maxRestarts);
    const agent = this.agent;
    this.runTurn(() => agent.run(text, this.task.typed));
  }
}

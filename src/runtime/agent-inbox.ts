// How the host's input reaches an agent's chart: the message checked, refused when the agent is not live,
// given an inbox id from the host's generator, and — for `run` and `stream` — a wait for the turn that
// answers it, with the typed output its schema gave (a typed run's schema is registered before its
// follow-up is queued).
import type { AnyActorRef } from 'xstate';
import { parseHostValue } from '../core/host-schema.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import type { OutputSpec } from '../session/types.ts';
import { parseOutputOptions } from '../tools/output-schema.ts';
import { stateName } from './agent-view.ts';
import { messageSchema } from './call-schemas.ts';
import type { OutputChecks } from './output-checks.ts';
import type { RunResult } from './turn-result.ts';
import type { TurnWaiters } from './turn-waiters.ts';

export type InboxCall = 'agent.followup' | 'agent.steer' | 'agent.inject';

/** What the inbox of one agent handle works with. */
export type AgentInboxParts = {
  id: string;
  ref: AnyActorRef;
  waiters: TurnWaiters;
  outputs: OutputChecks;
  nextId: (call: string) => string;
  /** The handle's dispose has begun: no input is taken any more. */
  disposing: () => boolean;
};

export class AgentInbox {
  constructor(private readonly parts: AgentInboxParts) {}

  /**
   * Queues `message` as a follow-up and resolves with the result of the turn that answers it; a typed run
   * (`options.output`) resolves with the value its schema gave as `output`. Rejects, never throws, on a
   * bad argument. `onQueued` learns the inbox id before the message is sent.
   */
  run(
    message: string,
    method: string,
    options: unknown,
    onQueued?: (id: string) => void,
  ): Promise<RunResult> {
    // The waiter exists before the message is sent: an idle agent claims it synchronously.
    return new Promise((resolve, reject) => {
      const typed = parseOutputOptions(`agent.${method}`, options ?? {});
      const { waiters, outputs } = this.parts;
      const wait = (id: string) => {
        onQueued?.(id);
        if (typed) outputs.expect(id, typed.validate);
        waiters.forInput(
          id,
          (result) => {
            const accepted = outputs.settle(id);
            resolve(
              accepted && result.reason === 'completed' ? { ...result, output: accepted.value } : result,
            );
          },
          (error) => {
            outputs.settle(id);
            reject(error);
          },
        );
      };
      this.queue('agent.followup', message, { beforeSend: wait, method, output: typed?.spec });
    });
  }

  /** Checks `message`, takes an inbox id and sends it to the agent; returns the id. */
  queue(
    type: InboxCall,
    message: string,
    options: { beforeSend?: (id: string) => void; method?: string; output?: OutputSpec | undefined } = {},
  ): string {
    const method = options.method ?? type.slice('agent.'.length);
    const call = `agent.${method}`;
    parseHostValue(call, messageSchema, { message });
    this.assertLive(method);
    const id = this.parts.nextId(call);
    options.beforeSend?.(id);
    const output = options.output ? { output: options.output } : {};
    this.parts.ref.send({ type, id, message, ...output });
    return id;
  }

  /** Throws `AgentStateError` unless the agent is ready (created, and not being disposed). */
  assertLive(what: string): void {
    const snapshot = this.parts.ref.getSnapshot();
    if (this.parts.disposing() || snapshot.status !== 'active' || !snapshot.matches('ready')) {
      throw new AgentStateError(`cannot ${what}: agent ${this.parts.id} is ${stateName(snapshot.value)}`);
    }
  }
}

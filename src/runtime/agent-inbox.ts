// How the host's input reaches an agent's chart: checked, refused when the agent is not live, given its
// inbox id, and — for `run` and `stream` — waited for until the turn that answers it ends.
import type { AnyActorRef } from 'xstate';
import { parseHostValue } from '../core/host-schema.ts';
import { AgentStateError } from '../errors/agent-state-error.ts';
import { stateName } from './agent-view.ts';
import { messageSchema } from './call-schemas.ts';
import type { RunResult } from './turn-result.ts';
import type { TurnWaiters } from './turn-waiters.ts';

type InboxType = 'agent.followup' | 'agent.steer' | 'agent.inject';

export class AgentInbox {
  constructor(
    private readonly agent: {
      id: string;
      ref: AnyActorRef;
      nextId: (call: string) => string;
      waiters: TurnWaiters;
      /** The handle's dispose has begun: no input is taken any more. */
      disposing: () => boolean;
    },
  ) {}

  /** Queues `message` as a follow-up and resolves with the result of the turn that answers it. */
  runTurn(message: string, method: string, onQueued?: (id: string) => void): Promise<RunResult> {
    // The waiter exists before the message is sent: an idle agent claims it synchronously.
    return new Promise((resolve, reject) => {
      const wait = (id: string) => {
        onQueued?.(id);
        this.agent.waiters.forInput(id, resolve, reject);
      };
      this.queue('agent.followup', message, wait, method);
    });
  }

  /** Queues input of `type` and returns its inbox id (`method` names the public call in errors). */
  queue(
    type: InboxType,
    message: string,
    beforeSend?: (id: string) => void,
    method: string = type.slice('agent.'.length),
  ): string {
    const call = `agent.${method}`;
    parseHostValue(call, messageSchema, { message });
    this.assertLive(method);
    const id = this.agent.nextId(call);
    beforeSend?.(id);
    this.agent.ref.send({ type, id, message });
    return id;
  }

  /** Throws `AgentStateError` unless the agent is ready (created, and not being disposed). */
  assertLive(what: string): void {
    const snapshot = this.agent.ref.getSnapshot();
    if (this.agent.disposing() || snapshot.status !== 'active' || !snapshot.matches('ready')) {
      throw new AgentStateError(`cannot ${what}: agent ${this.agent.id} is ${stateName(snapshot.value)}`);
    }
  }
}

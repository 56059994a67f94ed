// `wait_agents`: resolves on the first mail from one of the agents waited for (at once when some is
// unread already), once none of them runs, when
// the time passes on the runtime's clock, or when the call is cancelled — whichever comes first, once.
import type { Clock } from '../../core/clock.ts';
import type { BackgroundAgentStatus, BackgroundWaitOutcome } from '../../tools/background-port.ts';

/** Something that happened to an agent's mail or children: what a `wait_agents` call listens for. */
export type MailNews = { from: string } | { ended: string };

export type MailWait = {
  /** The session ids waited for. */
  targets: readonly string[];
  /** Those of them whose mail already waits in the inbox, unread: the wait ends at once. */
  unread: readonly string[];
  views: () => BackgroundAgentStatus[];
  /** True when nothing is left to wait for (every child waited for has ended). */
  settled: () => boolean;
  listen: (listener: (news: MailNews) => void) => () => void;
  clock: Clock;
  timeoutMs: number;
  signal: AbortSignal;
};

export function waitForMail(wait: MailWait): Promise<BackgroundWaitOutcome> {
  const { targets, views, settled, clock, signal } = wait;
  if (targets.length === 0 || wait.unread.length > 0 || settled() || signal.aborted)
    return Promise.resolve({ agents: views(), arrived: [...wait.unread], timedOut: false });
  return new Promise((resolve) => {
    const arrived: string[] = [];
    const finish = (timedOut: boolean) => {
      stopListening();
      cancelTimer();
      signal.removeEventListener('abort', onAbort);
      resolve({ agents: views(), arrived, timedOut });
    };
    const onAbort = () => finish(false);
    const stopListening = wait.listen((news) => {
      if ('from' in news && targets.includes(news.from)) {
        arrived.push(news.from);
        finish(false);
      } else if ('ended' in news && settled()) finish(false);
    });
    const cancelTimer = clock.setTimer(() => finish(true), wait.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

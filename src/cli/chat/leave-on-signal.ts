// The chat leaves on SIGTERM and SIGHUP as it does on /exit: the session is closed (and kept), and the
// terminal gets back what the chat changed in it. Node's default for these signals ends the process at
// once, leaving bracketed paste on (every later paste in that shell arrives wrapped in `ESC[200~`).
// A second signal while leaving takes the default again: a chat that cannot close still ends.

const signals = { SIGHUP: 1, SIGTERM: 15 } as const;

/** Calls `leave` with the shell's exit code for the signal (128 + its number); returns how to stop. */
export function leaveOnSignals(leave: (code: number) => void): () => void {
  const handlers = Object.entries(signals).map(([name, number]) => {
    const handler = () => {
      stop();
      leave(128 + number);
    };
    process.once(name, handler);
    return [name, handler] as const;
  });
  const stop = () => {
    for (const [name, handler] of handlers) process.off(name, handler);
  };
  return stop;
}

import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A tag put in the environment of a command's first process. Every process it starts inherits it, also one
 * that leaves the process group with `setsid` or a double fork, so on Linux the tag finds them all in
 * `/proc/<pid>/environ`. Only a process that clears or rewrites its environment before it execs loses it.
 */
export type ProcessMarker = { name: string; value: string };

const markerName = 'AGENTCHART_BASH_RUN';
// One counter for every copy of this module in the process, so two copies never hand out the same tag.
const counterKey = Symbol.for('agentchart.bash.runs');
const holder = globalThis as { [counterKey]?: number };

/** A tag no other command of this process has: the host's pid and a counter (no clock, no randomness). */
export function newMarker(): ProcessMarker {
  holder[counterKey] = (holder[counterKey] ?? 0) + 1;
  return { name: markerName, value: `${process.pid}-${holder[counterKey]}` };
}

/** Whether processes can be found through /proc here (Linux). */
export const canScanProcesses = process.platform === 'linux';

type ProcessEntry = { pid: number; parent: number; started: string; marked: boolean };

/** Every live process this user may inspect, with its parent, start time and whether it carries `entry`. */
async function listProcesses(entry: string): Promise<ProcessEntry[]> {
  // Without a readable /proc there is nothing to find: the process group is then all that is signalled.
  const pids = (await readdir('/proc').catch(() => [] as string[])).map(Number).filter(Number.isInteger);
  const found = await Promise.all(
    pids.map(async (pid): Promise<ProcessEntry | undefined> => {
      if (pid === process.pid) return undefined;
      try {
        // Fields after the command name, which is in parentheses and may hold anything.
        const stat = await readFile(`/proc/${pid}/stat`, 'latin1');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
        // An environment that cannot be read carries no marker; the process may still be a found descendant.
        const environment = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
        const started = fields[19] ?? '';
        return { pid, parent: Number(fields[1]), started, marked: environment.split('\0').includes(entry) };
      } catch {
        // Gone meanwhile or not readable: nothing of ours to stop.
        return undefined;
      }
    }),
  );
  return found.filter((process) => process !== undefined);
}

/**
 * The processes of one command, found through /proc: those carrying its marker, the descendants of those
 * (a child that cleared its environment is still found while its parent lives), and any process found in an
 * earlier scan that is still the same process (same pid and start time), so a child orphaned by a kill
 * is not lost. Empty where /proc cannot be read.
 */
export class CommandProcesses {
  private readonly known = new Map<number, string>();

  constructor(private readonly marker: ProcessMarker) {}

  async find(): Promise<number[]> {
    if (!canScanProcesses) return [];
    const all = await listProcesses(`${this.marker.name}=${this.marker.value}`);
    const members = new Set(
      all
        .filter((entry) => entry.marked || this.known.get(entry.pid) === entry.started)
        .map((entry) => entry.pid),
    );
    for (let grew = true; grew; ) {
      grew = false;
      for (const entry of all) {
        if (members.has(entry.pid) || !members.has(entry.parent)) continue;
        members.add(entry.pid);
        grew = true;
      }
    }
    for (const entry of all) if (members.has(entry.pid)) this.known.set(entry.pid, entry.started);
    return [...members];
  }
}

export type StopOptions = {
  /** Time the processes get to exit after SIGTERM before SIGKILL. */
  graceMs: number;
  log: (message: string) => void;
};

// Polling step while waiting for processes to exit, and the most SIGKILL rounds before giving up.
const pollMs = 25;
const maxKillRounds = 200;

/**
 * Stops a command and every process it started: its process group (`-pid`) and, on Linux, every process
 * `CommandProcesses` finds. SIGTERM first; whatever is left after `graceMs` gets SIGKILL, in rounds until a scan
 * finds nothing (a process may fork while the others are killed). Never rejects; what could not be stopped
 * is reported through `log`.
 */
export async function stopProcessTree(
  target: { pid: number; marker: ProcessMarker },
  options: StopOptions,
): Promise<void> {
  const processes = new CommandProcesses(target.marker);
  try {
    await signalAll(target.pid, processes, 'SIGTERM', options.log);
    for (let waited = 0; waited < options.graceMs; waited += pollMs) {
      if (!groupAlive(target.pid) && (await processes.find()).length === 0) return;
      await sleep(pollMs);
    }
    for (let round = 0; round < maxKillRounds; round++) {
      if (!(await signalAll(target.pid, processes, 'SIGKILL', options.log))) return;
      await sleep(round < 10 ? 5 : pollMs);
    }
    options.log(`bash: processes of command ${target.marker.value} were still running after SIGKILL`);
  } catch (error) {
    // Called from an abort listener, where a rejection would escape: report it instead.
    options.log(`bash: stopping command ${target.marker.value} failed: ${error}`);
  }
}

/** Signals the group and every marked process; true when there was anything to signal. */
async function signalAll(
  groupId: number,
  processes: CommandProcesses,
  signal: NodeJS.Signals,
  log: (message: string) => void,
): Promise<boolean> {
  // Scan before signalling: a parent killed first would orphan a child that only its parent links to us.
  const found = await processes.find();
  let any = send(-groupId, signal, log);
  for (const pid of found) any = send(pid, signal, log) || any;
  return any;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    // ESRCH: the group is gone (EPERM would mean it is not ours, which a group we started never is).
    return false;
  }
}

/** Sends a signal; false when the process (or group) is already gone. */
function send(pid: number, signal: NodeJS.Signals, log: (message: string) => void): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH') log(`bash: ${signal} to ${pid < 0 ? `group ${-pid}` : pid} failed: ${error}`);
    return false;
  }
}

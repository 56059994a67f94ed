import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { pendingInbox, repair } from '../../src/session/repair.ts';
import type { LogEvent } from '../../src/session/types.ts';
import {
  assertCallsPaired,
  counterIds,
  echoTool,
  routedModel,
  tickingClock,
  turnStarts,
} from '../support/crash-kit.ts';

// A real child process runs an agent on the file store and is killed with SIGKILL at one point of its
// run; then this process loads the session, repairs it and resumes it to completion. 14 kill points.

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const fixture = join(root, 'test/fixtures/crash-child.ts');

type KillPoint = {
  point: string;
  /** The types repair appends to the log the kill left behind. */
  repaired: string[];
  /** Turn numbers in the final log, after resuming and one more turn. */
  turns: number[];
  /** Whether the kill left a torn last line (dropped on load with a warning). */
  torn?: boolean;
  /** The outcome repair gives the slow call, when the kill lost its result. */
  slowOutcome?: 'unknown' | 'not_started';
  /** Ids of the input the log shows queued when the kill came. */
  queued: readonly string[];
  /** The model's context window in the child and after resume (a small one makes turns compact). */
  window?: number;
  /** Compactions in the final log. */
  compactions?: number;
};

// The flush before a model request includes the step's `step.start`, so a kill before or during a
// request leaves that step open too. Tool calls are written ahead of running (`tool.started` is durable
// before the tool starts), so a kill inside a tool leaves a call whose outcome repair marks `unknown`.
const closeTurn = ['step.end', 'turn.end'];
// The child's ids: `c2` is the first question (the run's own input); `c3` (a follow-up, "second question")
// and `c4` (an inject) are queued while the slow tool runs.
const firstQuestion = ['c2'];
const everyInput = ['c2', 'c3', 'c4'];
const killPoints: KillPoint[] = [
  { point: 'after-create', repaired: [], turns: [1], queued: [] },
  { point: 'before-model-1', repaired: closeTurn, turns: [1, 2], queued: firstQuestion },
  { point: 'mid-stream-1', repaired: closeTurn, turns: [1, 2], queued: firstQuestion },
  {
    point: 'in-note-tool',
    repaired: ['tool.result', 'tool.result', ...closeTurn],
    turns: [1, 2],
    queued: firstQuestion,
  },
  { point: 'before-model-2', repaired: closeTurn, turns: [1, 2], queued: firstQuestion },
  { point: 'mid-stream-2', repaired: closeTurn, turns: [1, 2], queued: firstQuestion },
  {
    point: 'in-slow-tool',
    repaired: ['tool.result', ...closeTurn],
    turns: [1, 2],
    queued: firstQuestion,
    slowOutcome: 'unknown',
  },
  {
    point: 'flush-cut-after-call',
    repaired: ['tool.result', 'step.end', 'turn.end'],
    turns: [1, 2],
    queued: firstQuestion,
    torn: true,
    slowOutcome: 'not_started',
  },
  {
    // The write-ahead flush ends with `tool.started`: the kill comes after it, before the tool runs.
    point: 'flush-cut-after-started',
    repaired: ['tool.result', 'step.end', 'turn.end'],
    turns: [1, 2],
    queued: firstQuestion,
    slowOutcome: 'unknown',
  },
  // From here the follow-up queued during the slow tool is durable: it must be answered after resume.
  { point: 'before-model-3', repaired: closeTurn, turns: [1, 2, 3], queued: everyInput },
  { point: 'flush-turn-end', repaired: ['turn.end'], turns: [1, 2, 3], queued: everyInput, torn: true },
  { point: 'before-model-4', repaired: closeTurn, turns: [1, 2, 3], queued: everyInput },
  { point: 'after-all', repaired: [], turns: [1, 2, 3], queued: everyInput },
  { point: 'flush-session-end', repaired: [], turns: [1, 2, 3], queued: everyInput, torn: true },
  // Killed while the summarising request before the first turn's last step is out (the window is full and
  // the turn's first two steps can be summarised): no half summary is in the log, the open turn is
  // closed, and after resume each turn compacts before its first step instead.
  {
    point: 'in-compaction',
    repaired: ['turn.end'],
    turns: [1, 2, 3],
    queued: everyInput,
    window: 12,
    compactions: 2,
  },
];

const dirs = new Map<string, string>();

/** Runs the fixture until it reports the kill point, then SIGKILLs it. */
function crashAt(dir: string, point: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, point], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(`AT ${point}\n`)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && stdout.includes(`AT ${point}`)) done();
      else fail(new Error(`the child never reached ${point} (exit ${code}, ${signal}): ${stdout} ${stderr}`));
    });
  });
}

beforeAll(async () => {
  const pending = [...killPoints];
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const dir = await mkdtemp(join(tmpdir(), `agentchart-crash-${next.point}-`));
      dirs.set(next.point, dir);
      await crashAt(dir, next.point);
    }
  };
  await Promise.all(Array.from({ length: 5 }, worker));
  // A deadline for a child that never reaches its point; each child waits for its event, not a clock, and
  // fifteen tsx processes on a loaded 2-core machine can take minutes.
}, 300_000);

afterAll(async () => {
  await Promise.all([...dirs.values()].map((dir) => rm(dir, { recursive: true, force: true })));
});

function claimedIds(events: readonly LogEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'inbox.claimed' ? (e.data.ids as string[]) : []));
}

describe('crash consistency: SIGKILL at a point, then load, repair and resume to completion', () => {
  it.each(killPoints)(
    '$point',
    async ({ point, repaired, turns, torn, slowOutcome, queued, window, compactions }) => {
      const dir = dirs.get(point)!;
      // The killed process still "holds" the session: the one claim in its lock names a pid that is gone.
      const claims = await readdir(join(dir, 'crash.lock'));
      expect(claims).toHaveLength(1);
      const lock = JSON.parse(await readFile(join(dir, 'crash.lock', claims[0]!), 'utf8')) as { pid: number };
      expect(lock.pid).not.toBe(process.pid);
      const loaded = await fileStore(dir).load('crash');
      expect(loaded.warnings).toHaveLength(torn ? 1 : 0);
      const before = loaded.events;
      expect(repair(before, { now: () => 0 }).appended.map((e) => e.type)).toEqual(repaired);
      const queuedBefore = before.filter((e) => e.type === 'inbox.queued').map((e) => String(e.data.id));
      expect(queuedBefore).toEqual(queued);

      const routed = routedModel({}, (request) => {
        const last = request.messages.filter((m) => m.role === 'user').at(-1);
        return { text: `resumed: ${last?.role === 'user' ? last.content : ''}` };
      });
      const model = window ? { ...routed, contextWindow: window } : routed;
      expect(before.filter((e) => e.type === 'compaction')).toEqual([]);
      const system = createAgentSystem({
        model,
        tools: [echoTool],
        store: fileStore(dir),
        ids: counterIds('r'),
        clock: tickingClock(5_000),
        projectInstructions: false,
        permissionMode: 'bypass',
      });
      const agent = await system.resumeAgent('crash');
      // The resumed process says what it runs with, then repairs what the crash left open.
      expect(
        agent
          .log()
          .slice(before.length, before.length + 1 + repaired.length)
          .map((e) => e.type),
      ).toEqual(['session.resumed', ...repaired]);
      await agent.whenIdle(); // a follow-up that was queued but never answered runs first
      expect(await agent.run('finish')).toMatchObject({ reason: 'completed', text: 'resumed: finish' });
      await system.dispose();
      // The resume took the dead process's lock over and gave it back on dispose.
      await expect(readFile(join(dir, 'crash.lock'))).rejects.toMatchObject({ code: 'ENOENT' });

      const final = (await fileStore(dir).load('crash')).events;
      expect(final.filter((e) => e.type === 'compaction')).toHaveLength(compactions ?? 0);
      expect(final.slice(0, before.length)).toEqual(before); // the log is appended to, never rewritten
      assertCallsPaired(final, point);
      expect(turnStarts(final)).toEqual(turns);
      expect(final.filter((e) => e.type === 'turn.end').map((e) => e.turn)).toEqual(turns);
      // No queued input is lost: everything queued before the kill is claimed exactly once in the end.
      expect(pendingInbox(final)).toEqual([]);
      const claimed = claimedIds(final);
      expect(queued.map((id) => claimed.filter((c) => c === id).length)).toEqual(queued.map(() => 1));
      if (queued.includes('c3')) {
        const asked = final.filter((e) => e.type === 'user.message' && e.data.content === 'second question');
        expect(asked).toHaveLength(1);
      }
      if (slowOutcome) {
        const result = final.find((e) => e.type === 'tool.result' && e.data.callId === 'slow_1');
        expect(result?.data.outcome).toBe(slowOutcome);
      }
    },
  );
});

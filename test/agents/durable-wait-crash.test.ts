// Durable waits: a real child process runs an agent until it waits for a person, and is killed with SIGKILL
// right then; this process resumes the session. Nothing the model said or was asked is lost: the files on
// disk already hold it while the agent waits, the same questions reach the (new) host, answering finishes
// the turn, and every log keeps its original `assistant.message` once and one `tool.result` per call.
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/actors/approval.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { type ScenarioName, scenarios, waitSystem } from '../support/approval-wait-kit.ts';
import { startScriptUntil } from '../support/child-run.ts';
import { assertCallsPaired } from '../support/crash-kit.ts';

type Crash = {
  dir: string;
  workspace: string;
  /** `agentId callId tool` of each question the killed process's host was asked. */
  asked: string[];
  /** Every session file as it was on disk while the agent waited, parsed. */
  onDisk: Map<string, LogEvent[]>;
};

const crashes = new Map<string, Crash>();
const temporary: string[] = [];

async function sessionFiles(dir: string): Promise<Map<string, LogEvent[]>> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).sort();
  const read = async (name: string): Promise<[string, LogEvent[]]> => [
    name.replace(/\.jsonl$/, ''),
    await readLog(join(dir, name)),
  ];
  return new Map(await Promise.all(files.map(read)));
}

/** Runs a scenario in a child until every question is asked, reads the files, then SIGKILLs it. */
async function crashWhileWaiting(name: ScenarioName): Promise<Crash> {
  const dir = await mkdtemp(join(tmpdir(), `agentchart-wait-${name}-`));
  const workspace = await mkdtemp(join(tmpdir(), `agentchart-wait-work-${name}-`));
  temporary.push(dir, workspace);
  const child = await startScriptUntil('test/fixtures/approval-wait-child.ts', 'WAITING', {
    args: [dir, workspace, name],
    timeoutMs: 30_000,
  });
  // Read while the agent waits: this is what a crash right now leaves.
  const onDisk = await sessionFiles(dir);
  child.kill('SIGKILL');
  const run = await child.done;
  expect(run.signal).toBe('SIGKILL');
  const asked = run.stdout.split('\n').flatMap((text) => (text.startsWith('ASK ') ? [text.slice(4)] : []));
  return { dir, workspace, asked, onDisk };
}

beforeAll(async () => {
  const names = Object.keys(scenarios) as ScenarioName[];
  await Promise.all(names.map(async (name) => crashes.set(name, await crashWhileWaiting(name))));
  // The subagent crash is resumed twice: once with a host to ask, once headless.
  const solo = crashes.get('subagent')!;
  const copy = await mkdtemp(join(tmpdir(), 'agentchart-wait-headless-'));
  temporary.push(copy);
  await cp(solo.dir, copy, { recursive: true });
  crashes.set('subagent-headless', { ...solo, dir: copy });
}, 90_000);

afterAll(async () => {
  await Promise.all(temporary.map((path) => rm(path, { recursive: true, force: true })));
});

/** The asked call's `tool.call`, its step's `assistant.message` and its `approval.asked` are in the file. */
function expectQuestionDurable(onDisk: Map<string, LogEvent[]>, question: string): void {
  const [agentId, callId] = question.split(' ') as [string, string];
  const events = onDisk.get(agentId) ?? [];
  const call = events.find((event) => event.type === 'tool.call' && event.data.callId === callId);
  expect(call, `${question}: tool.call on disk`).toBeDefined();
  const answer = events.find(
    (event) => event.type === 'assistant.message' && event.turn === call?.turn && event.step === call?.step,
  );
  expect(((answer?.data.toolCalls ?? []) as { id: string }[]).map((c) => c.id)).toContain(callId);
  expect(
    events.filter((event) => event.type === 'approval.asked').map((event) => event.data.callId),
  ).toContain(callId);
}

/** Resumes `main` in this process with `answer` as the host (none: headless) and runs its turn to the end. */
async function resumeAndFinish(crash: Crash, answer: 'allow' | undefined) {
  const asked: ApprovalRequest[] = [];
  const system = waitSystem({
    dir: crash.dir,
    cwd: crash.workspace,
    idPrefix: 'r',
    ...(answer
      ? {
          approve: async (request: ApprovalRequest) => {
            asked.push(request);
            return answer;
          },
        }
      : {}),
  });
  const agent = await system.resumeAgent('main');
  const result = await agent.whenTurnEnds(1);
  await system.dispose();
  const final = await sessionFiles(crash.dir);
  return {
    asked: asked.map((request) => `${request.agentId} ${request.callId} ${request.tool}`),
    result,
    final,
  };
}

/** Each log only grew, kept its answers once each, and gave every call exactly one result. */
async function expectLogsWhole(crash: Crash, final: Map<string, LogEvent[]>): Promise<void> {
  expect([...final.keys()]).toEqual([...crash.onDisk.keys()]);
  for (const [sessionId, before] of crash.onDisk) {
    const after = final.get(sessionId)!;
    expect(after.slice(0, before.length), sessionId).toEqual(before);
    const answers = (events: LogEvent[]) =>
      events.filter((event) => event.type === 'assistant.message').map((event) => event.data.text);
    for (const text of answers(before))
      expect(
        answers(after).filter((t) => t === text),
        `${sessionId}: ${text}`,
      ).toHaveLength(1);
    assertCallsPaired(after, sessionId);
    // Continued, not repaired: nothing was marked unknown or interrupted.
    expect(
      after.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome),
    ).not.toContain('unknown');
    expect(
      after.filter((event) => event.type === 'turn.end').map((event) => event.data.reason),
    ).not.toContain('interrupted');
    // A store that loads it finds nothing torn.
    expect((await fileStore(crash.dir).load(sessionId)).warnings).toEqual([]);
  }
}

const expected: Record<ScenarioName, { asked: string[]; text: string; results: string[]; files: string[] }> =
  {
    'first-call': {
      asked: ['main w1 write_file'],
      text: 'Done: first call.',
      results: ['ok', 'ok'],
      files: ['a.txt'],
    },
    'later-call': {
      asked: ['main w1 write_file'],
      text: 'Done: later call.',
      results: ['ok', 'ok', 'ok'],
      files: ['b.txt'],
    },
    'two-calls': {
      asked: ['k3 h1 write_file', 'k5 h2 write_file'],
      text: 'Done: both helpers.',
      results: ['ok', 'ok'],
      files: ['one.txt', 'two.txt'],
    },
    subagent: { asked: ['k3 h3 write_file'], text: 'Done: helper.', results: ['ok'], files: ['solo.txt'] },
  };

describe('SIGKILL while waiting for approval, then resume in a new process', () => {
  it.each(Object.keys(expected) as ScenarioName[])('%s', async (name) => {
    const crash = crashes.get(name)!;
    const want = expected[name];
    expect([...crash.asked].sort()).toEqual(want.asked);
    for (const question of crash.asked) expectQuestionDurable(crash.onDisk, question);
    const { asked, result, final } = await resumeAndFinish(crash, 'allow');
    // The same questions reach the new host (a subagent's too: it asks its parent's host).
    expect(asked.sort()).toEqual(want.asked);
    expect(result).toMatchObject({ reason: 'completed', text: want.text, turn: 1 });
    const main = final.get('main')!;
    expect(main.filter((event) => event.type === 'tool.result').map((event) => event.data.outcome)).toEqual(
      want.results,
    );
    for (const file of want.files) expect(await readFile(join(crash.workspace, file), 'utf8')).toBe(file);
    await expectLogsWhole(crash, final);
  });

  it('subagent, resumed headless: nobody is asked, the subagent call is denied and both turns end', async () => {
    const crash = crashes.get('subagent-headless')!;
    const { asked, result, final } = await resumeAndFinish(crash, undefined);
    expect(asked).toEqual([]);
    expect(result).toMatchObject({ reason: 'completed', text: 'Done: helper.' });
    const child = final.get('k3')!;
    expect(child.filter((event) => event.type === 'approval.decided').map((event) => event.data)).toEqual([
      expect.objectContaining({ callId: 'h3', outcome: 'deny', by: 'headless' }),
    ]);
    expect(child.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
      'completed',
    ]);
    await expectLogsWhole(crash, final);
  });
});

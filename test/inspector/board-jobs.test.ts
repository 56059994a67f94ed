// A job's line on the board when the page opens mid-job: the tasks that ended before are disposed and their
// logs are no longer the live system's, so the logs alone counted them as not started. The system keeps
// where each job stands (`system.jobs`), the live source sends it (at connect and as it changes), and the
// board takes it over the logs' count. Real runs: the board's own live scenario, and jobs of a system.
import { describe, expect, it } from 'vitest';
import { projectBoard } from '../../src/inspector/board.ts';
import { withSystemJobs } from '../../src/inspector/board-jobs.ts';
import { LiveSource } from '../../src/inspector/live-source.ts';
import type { InspectorMessage } from '../../src/inspector/protocol.ts';
import { keptEndedJobs } from '../../src/runtime/jobs/job-standings.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { boardRun } from '../support/board-run.ts';
import { routedModel, until } from '../support/crash-kit.ts';
import { useSystems } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const folder = useTempFolders('agentchart-board-jobs');
const systemFor = useSystems();

describe('job lines on a board opened mid-job', () => {
  it('count the tasks that ended before the page opened as finished, from the system', async () => {
    const { system, start } = boardRun({ dir: await folder('sessions'), cwd: await folder('workspace') });
    const run = await start();
    try {
      // Opened now: two tasks of the job have ended (one failed), the third waits for approval.
      const source = new LiveSource(system);
      const payload = source.agents();
      expect(payload.jobs).toEqual([
        { id: 'job-1', tasks: 4, finished: 2, failed: 1, running: 1, waiting: 0, ended: false },
      ]);
      const logs = new Map<string, readonly LogEvent[]>(
        system.list().map((agent) => [agent.id, agent.log()]),
      );
      const fromLogs = projectBoard(logs).jobs;
      expect(fromLogs).toEqual([
        { id: 'job-1', tasks: 4, finished: 0, failed: 0, running: 1, notStarted: 3 },
      ]);
      expect(withSystemJobs(fromLogs, payload.jobs)).toEqual([
        { id: 'job-1', tasks: 4, finished: 2, failed: 1, running: 1, notStarted: 1 },
      ]);
      // While a page listens, each change of a standing is sent.
      const sent: InspectorMessage[] = [];
      const stop = source.subscribe((message) => sent.push(message));
      await run.release();
      await run.job.result;
      await until(
        () => sent.some((message) => message.kind === 'jobs' && message.jobs[0]?.ended === true),
        'the job ended on the page',
      );
      stop();
      const last = sent.filter((message) => message.kind === 'jobs').at(-1);
      expect(last).toEqual({
        kind: 'jobs',
        jobs: [{ id: 'job-1', tasks: 4, finished: 4, failed: 1, running: 0, waiting: 0, ended: true }],
      });
      await source.close();
    } finally {
      await system.dispose();
    }
  });

  it('keeps the last ended jobs only, drops a listener that throws, and names jobs the logs lack', async () => {
    const system = systemFor({ model: routedModel({ work: [{ text: 'done' }] }), tools: [] });
    let heard = 0;
    system.jobs.subscribe(() => {
      throw new Error('a broken listener');
    });
    system.jobs.subscribe(() => heard++);
    for (let index = 0; index <= keptEndedJobs; index++)
      await system.runJob({ tasks: [{ prompt: 'work' }], concurrency: 1 }).result;
    const jobs = system.jobs.list();
    expect(jobs.map((job) => job.id)).toEqual(
      Array.from({ length: keptEndedJobs }, (_, index) => `job-${index + 2}`),
    );
    expect(jobs.every((job) => job.ended && job.finished === 1 && job.failed === 0)).toBe(true);
    // Begun, started, finished, ended: four changes a job, all heard by the listener that works.
    expect(heard).toBe(4 * (keptEndedJobs + 1));
    // A job the page holds no log of at all still gets its line; junk from outside counts as nothing.
    expect(
      withSystemJobs([], [jobs[0], { id: 7 }, null, { id: 'x', tasks: -1, finished: Number.NaN }]),
    ).toEqual([
      { id: 'job-2', tasks: 1, finished: 1, failed: 0, running: 0, notStarted: 0 },
      { id: 'x', tasks: 0, finished: 0, failed: 0, running: 0, notStarted: 0 },
    ]);
  });
});

// examples/supervisor.ts run as its reader would run it (see examples.test.ts), against a local Chat
// Completions server playing three models: the supervisor, a counter whose first request fails (a 400:
// its turn ends `model_error`, and it is restarted from its log) and a counter that writes to the
// supervisor before it answers.
import { describe } from 'vitest';
import type { RecordedRequest } from '../support/wire/fake-server.ts';
import type { WireReply } from '../support/wire/reply.ts';
import {
  exampleTest,
  firstUserText,
  linesOf,
  messagesOf,
  modelEnv,
  runExample,
  withBuiltPackage,
} from './example-kit.ts';

const turn = (text: string): WireReply => ({ turn: { text: [text] } });

/** The three models, told apart by the first thing each conversation was asked. */
function models() {
  let coreRequests = 0;
  return (request: RecordedRequest): WireReply => {
    const messages = messagesOf(request);
    const asked = firstUserText(request);
    if (asked.includes('package core')) {
      coreRequests++;
      if (coreRequests === 1) return { httpError: { status: 400, message: 'the model is not loaded' } };
      return turn('{"package":"core","failing":2}');
    }
    if (asked.includes('package cli')) {
      if (!messages.some((message) => message.role === 'tool')) {
        const input = { to: 'parent', text: 'The cli suite is slow; counting.' };
        return {
          turn: { toolCalls: [{ id: 'm1', name: 'send_message', argumentPieces: [JSON.stringify(input)] }] },
        };
      }
      return turn('{"package":"cli","failing":0}');
    }
    if (!messages.some((message) => message.role === 'assistant')) {
      const spawn = (id: string, pkg: string) => ({
        id,
        name: 'spawn_agent',
        argumentPieces: [
          JSON.stringify({
            agent_type: 'counter',
            description: pkg,
            prompt: `Count the failing tests of package ${pkg}.`,
          }),
        ],
      });
      return { turn: { toolCalls: [spawn('s1', 'core'), spawn('s2', 'cli')] } };
    }
    const results = messages.filter(
      (message) => message.role === 'user' && String(message.content).includes('finished (completed)'),
    );
    return results.length < 2
      ? turn('Waiting for the counters.')
      : turn('2 tests fail: 2 in core, none in cli.');
  };
}

withBuiltPackage();

describe('examples/supervisor.ts', { timeout: 60_000 }, () => {
  exampleTest(
    'two typed workers in the background, a message to the supervisor, a worker restarted from its log',
    async ({ expect, workspace, wire }) => {
      const server = await wire(models());
      const run = await runExample('supervisor.ts', { cwd: workspace, env: modelEnv(server) });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = linesOf(run.stdout);
      // The workers run side by side: what the log shows live comes in an order of their making.
      const live = lines.slice(0, 6);
      expect([...live].sort()).toEqual([
        'message from the cli counter',
        'restarting the core counter: model_error',
        'result from the cli counter',
        'result from the core counter',
        'started a counter',
        'started a counter',
      ]);
      expect(live.indexOf('restarting the core counter: model_error')).toBeLessThan(
        live.indexOf('result from the core counter'),
      );
      expect(live.indexOf('message from the cli counter')).toBeLessThan(
        live.indexOf('result from the cli counter'),
      );
      expect([...lines.slice(6, 8)].sort()).toEqual([
        'cli: {"package":"cli","failing":0}',
        'core: {"package":"core","failing":2}',
      ]);
      expect(lines.slice(8)).toEqual(['2 tests fail: 2 in core, none in cli.']);
      // The restarted worker went on from its log: its second request holds its first, and was told why.
      const core = server.requests.filter((request) => firstUserText(request).includes('package core'));
      expect(core).toHaveLength(2);
      const resumedWith = messagesOf(core[1]!).map((message) => String(message.content));
      expect(resumedWith.some((text) => text.includes('restart'))).toBe(true);
      // Each worker's request asked for the host's schema, never one the model gave.
      expect(core[1]!.body.response_format).toMatchObject({ type: 'json_schema' });
    },
  );
});

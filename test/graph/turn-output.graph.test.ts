// Graph paths of the turn chart's `checkingOutput`, driven through the real runtime: a typed run whose
// schema's check the driver holds and answers (valid or invalid), the model's answers given by the gate
// model. An invalid answer sends the turn round for another step that reads why, up to the retries; a
// cancel while the model answers or while the answer is checked ends the turn. Every path ends with a
// dispose that checks the log, and the run's result is the path's.
import { describe, expect, it } from 'vitest';
import { turnMachine } from '../../src/machines/turn.ts';
import {
  cancelledFrom,
  outputTurnEvents,
  type TurnSnapshot,
  turnInput,
  turnTestName,
  typedOutput,
} from './catalogues/turn.ts';
import { actorAt, createHarness, disposeAndCheck, type Harness } from './support/driver.ts';
import { HoldingSchema } from './support/holding-schema.ts';
import { chartModel, eventsOf } from './support/model.ts';
import { answerFinal, harnessTurnStimuli, settled } from './support/stimuli.ts';

const limits = { maxSteps: 5, maxUnknownToolCalls: 2 };

const graph = chartModel(turnMachine, {
  input: turnInput({ limits, step: { toolNames: [] }, output: typedOutput }),
  events: outputTurnEvents,
  serializeState: ({ value, context }, event) =>
    JSON.stringify([
      value,
      context.stepCount,
      context.output?.failures ?? null,
      context.output?.accepted ?? null,
      context.cancelCause ?? null,
      context.reason ?? null,
      cancelledFrom(event),
    ]),
  limit: 1_000,
});
const paths = graph.shortestPaths();

function stimuli(harness: Harness, holding: HoldingSchema) {
  return settled({
    'turn.begin': () => {
      harness.run = harness.agent.run('go', { output: holding.schema });
      harness.run.catch(() => undefined);
    },
    'step.done': () => answerFinal(harness, '{"answer": 1}'),
    'output.checked': (event) => holding.answer(event.valid),
    ...harnessTurnStimuli(harness),
  });
}

describe('turn chart graph paths through checkingOutput', () => {
  it('has the expected number of shortest paths', () => {
    // `created`, then three rounds (the retries allow three answers) of seven: stepping, stepping canceled,
    // checkingOutput, and `ending`/`done` after a valid answer and after a cancel there; an invalid answer
    // starts the next round, the third one `ending`/`done` with `invalid_output`: 1 + 3 × 7 + 2 = 24.
    expect(paths).toHaveLength(24);
  });

  for (const path of paths) {
    it(turnTestName(path), async () => {
      const holding = new HoldingSchema();
      const harness = await createHarness({ limits });
      const restsAt = (state: TurnSnapshot) => {
        if (!state.context.cancelCause) expect(actorAt(harness, ['turn'])?.value).toEqual(state.value);
      };
      await graph.run(path, {
        events: stimuli(harness, holding),
        states: {
          stepping: restsAt,
          checkingOutput: (state) => {
            restsAt(state);
            if (!state.context.cancelCause) expect(holding.waiting).toBe(true);
          },
        },
      });
      const expected = path.state;
      const checks = eventsOf(path).filter((event) => event.type === 'output.checked');
      const logged = harness.agent
        .log()
        .flatMap((event) => (event.type === 'output.checked' ? [event.data] : []));
      expect(logged.map((data) => [data.valid, data.attempt])).toEqual(
        checks.map((event, index) => [event.type === 'output.checked' && event.valid, index + 1]),
      );
      const over = expected.matches('done') || expected.matches('ending');
      if (harness.run && over) {
        const result = await harness.run;
        expect(result.reason).toBe(expected.context.reason);
        expect(result.output).toEqual(expected.context.reason === 'completed' ? { answer: 1 } : undefined);
      }
      await disposeAndCheck(harness);
      if (harness.run && !over) expect((await harness.run).reason).toBe('canceled');
    });
  }
});

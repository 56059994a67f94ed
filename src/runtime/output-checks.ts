// The output checks of one agent: the schemas of its typed runs, by the inbox id of their follow-up, and
// the values those schemas gave. A typed turn's check reads the final answer from the log, parses it as
// JSON and validates it with the run's schema; what it finds is logged by the turn (`output.checked`).
import type { OutputVerdict } from '../actors/output-check.ts';
import type { OutputCheckInput } from '../machines/turn-types.ts';
import { finalAnswerOf, parseAnswer } from '../session/typed-turns.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { type OutputCheck, validatorOf } from '../tools/output-schema.ts';
import type { JsonSchemaObject } from '../tools/tool-input.ts';

type Validate = (value: unknown) => Promise<OutputCheck>;

/**
 * Live, each typed run registers its schema's check (`expect`) before its follow-up is queued; a turn
 * whose run is not in this process (a resumed session's) is checked against the JSON Schema its log
 * recorded. In a replay (`recorded`), every check answers with the verdict the recording logged for the
 * same answer, and no schema runs: the replay logs the same verdicts, byte for byte.
 */
export class OutputChecks {
  private readonly validators = new Map<string, Validate>();
  private readonly values = new Map<string, unknown>();
  private readonly verdicts: Map<string, OutputVerdict> | undefined;

  constructor(recorded: readonly LogEvent[] | undefined) {
    this.verdicts = recorded ? recordedVerdicts(recorded) : undefined;
  }

  /** The run of follow-up `inboxId` checks its turn's answers with `validate`. */
  expect(inboxId: string, validate: Validate): void {
    this.validators.set(inboxId, validate);
  }

  /** The value the run of `inboxId` got from its schema (its last accepted answer), forgetting the run. */
  settle(inboxId: string): { value: unknown } | undefined {
    this.validators.delete(inboxId);
    const accepted = this.values.has(inboxId) ? { value: this.values.get(inboxId) } : undefined;
    this.values.delete(inboxId);
    return accepted;
  }

  /** Checks the final answer of `input.step`, as the log `events` holds it. */
  async check(input: OutputCheckInput, events: readonly LogEvent[]): Promise<OutputVerdict> {
    if (this.verdicts)
      return (
        this.verdicts.get(`${input.turn}:${input.step}`) ?? {
          valid: false,
          error: `the recording has no check of the answer of turn ${input.turn}, step ${input.step}`,
        }
      );
    const answer = finalAnswerOf(events, input.turn);
    if (answer === undefined) return { valid: false, error: 'the turn has no final answer to check' };
    const parsed = parseAnswer(answer.trim());
    if (!parsed.ok) return { valid: false, error: parsed.error };
    const validate = this.validators.get(input.inboxId) ?? validatorOf(input.schema as JsonSchemaObject);
    const checked = await validate(parsed.value);
    if (!checked.ok) return { valid: false, error: checked.error };
    if (this.validators.has(input.inboxId)) this.values.set(input.inboxId, checked.value);
    return { valid: true };
  }
}

/** The verdicts a recording logged, by the turn and step of the answer each one checked. */
function recordedVerdicts(events: readonly LogEvent[]): Map<string, OutputVerdict> {
  const verdicts = new Map<string, OutputVerdict>();
  for (const event of events) {
    if (!isEvent(event, 'output.checked')) continue;
    const { valid, error } = event.data;
    verdicts.set(`${event.turn}:${event.step}`, { valid, ...(error !== undefined ? { error } : {}) });
  }
  return verdicts;
}

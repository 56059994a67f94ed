// The inspector's turns view, derived from a log one event at a time.
import { describe, expect, it } from 'vitest';
import { TurnsView } from '../../src/inspector/log-view.ts';
import { loadRecording, RecordedSource } from '../../src/inspector/recorded-source.ts';

describe('the turns view', () => {
  it('counts the compactions of each turn: automatic, asked for, and after an overflow', async () => {
    const { sessions } = await loadRecording('test/fixtures/replay/compactions.jsonl');
    const view = new TurnsView();
    for (const event of sessions[0]!.events) view.apply(event);
    expect(
      view.view(10).map((turn) => [turn.turn, turn.reason, turn.steps.length, turn.compactions ?? 0]),
    ).toEqual([
      [1, 'completed', 2, 0],
      [2, 'completed', 2, 1],
      [3, 'completed', 0, 1],
      [4, 'completed', 1, 1],
    ]);
  });

  it('says how full the context was at the last request, against the window the recording used', async () => {
    const { sessions } = await loadRecording('test/fixtures/replay/compactions.jsonl');
    const [view] = new RecordedSource(sessions, 'r').agents().agents;
    expect(view?.context).toEqual({ usedTokens: 120, contextWindow: 1_000 });
  });
});

// npm run fixtures: re-records the replay fixtures with the scripted model. Review the diff before
// committing: a changed fixture means the runtime now writes a different log for the same run.
import { writeFile } from 'node:fs/promises';
import { SimulatedClock } from '../src/core/clock.ts';
import { scripted } from '../src/providers/scripted.ts';
import { formatLogLine } from '../src/session/schema.ts';
import { fixturePath, replayClockStart, runScenario, scenarios } from '../test/replay/scenarios.ts';

for (const scenario of scenarios) {
  const clock = new SimulatedClock(replayClockStart);
  const model = scripted(scenario.script, { clock });
  const events = await runScenario(scenario, model, clock);
  model.assertConsumed();
  await writeFile(fixturePath(scenario.name), events.map(formatLogLine).join(''));
  console.log(`wrote ${fixturePath(scenario.name)} (${events.length} events)`);
}

// A regression test made of a recorded session, as you would keep one in your own repository. Commit a
// session log (weather.jsonl is a run of ../first-agent.ts; yours are in .agentchart/sessions/), and this
// test re-runs it through the agentchart you have now, the model and the tools answering as recorded. A
// change in what the agent does fails it, naming the first event that differs.
// Run: npx vitest run examples/replay-test
import { expectReplay } from 'agentchart/testing';
import { it } from 'vitest';

it('answers as it did when recorded', () => expectReplay('examples/replay-test/weather.jsonl'));

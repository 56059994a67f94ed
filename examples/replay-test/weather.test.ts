// A regression test made of a recorded session, as you would keep one in your repository: weather.jsonl
// is a run of ../first-agent.ts (yours are in .agentchart/sessions/). It re-runs through agentchart as it
// is now, the model and the tools answering as recorded, and fails at the first event that differs.
// Run: npx vitest run examples/replay-test
import { expectReplay } from 'agentchart/testing';
import { it } from 'vitest';

it('answers as it did when recorded', () => expectReplay('examples/replay-test/weather.jsonl'));

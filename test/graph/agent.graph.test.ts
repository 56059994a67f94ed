// Graph paths of the agent chart (lifecycle + inbox), each driven through the real runtime. The catalogue
// is the chart's own (catalogues/agent.ts); each path runs through an events table and a states table
// (support/agent-stimuli.ts, support/model.ts).
import { describe, expect, it } from 'vitest';
import { AgentStateError } from '../../src/errors/agent-state-error.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { McpServerError } from '../../src/errors/mcp-server-error.ts';
import { agentMachine } from '../../src/machines/agent.ts';
import { agentEvents, agentInput, labelAgentEvent, serializeAgent, stageOf } from './catalogues/agent.ts';
import { disposeAndVerify, rollbackAndVerify } from './support/agent-checks.ts';
import { AgentRig } from './support/agent-driver.ts';
import { agentTables, modeOf, sessionError } from './support/agent-stimuli.ts';
import { chartModel, eventsOf, pathName } from './support/model.ts';
import { raceAlong } from './support/resume-race.ts';

const graphFor = (sessionEndHooks: boolean) =>
  chartModel(agentMachine, {
    input: agentInput(sessionEndHooks),
    events: agentEvents,
    serializeState: serializeAgent,
    limit: 5_000,
  });

// Without `sessionEnd` hooks a dispose goes straight from the turn's end to `flushing`; with them it
// waits in `disposing.endingSession`. Both charts' paths are driven, each on a runtime configured alike.
for (const sessionEndHooks of [false, true]) {
  const graph = graphFor(sessionEndHooks);
  const paths = graph.shortestPaths();
  describe(`agent chart graph paths${sessionEndHooks ? ', with sessionEnd hooks' : ''}`, () => {
    it('has the expected number of shortest paths', () => {
      // `disposing.endingSession` adds one resting combination for each of the 8 ways (held flag, queued
      // channels) a dispose reaches it.
      expect(paths).toHaveLength(sessionEndHooks ? 100 : 92);
      const resting = paths.filter((path) => path.state.matches({ disposing: 'endingSession' }));
      expect(resting).toHaveLength(sessionEndHooks ? 8 : 0);
      const through = paths.filter((path) =>
        path.steps.some((step) => step.event.type === 'hook.sessionEnd'),
      );
      expect(through).toHaveLength(sessionEndHooks ? 32 : 0);
    });

    for (const path of paths) {
      const events = eventsOf(path);
      const name = pathName(path, labelAgentEvent, { join: ' > ', empty: '(created)' });
      it(`${name} → ${JSON.stringify(path.state.value)}`, async () => {
        const mode = modeOf(events);
        const rig = new AgentRig({ sessionEndHook: sessionEndHooks });
        if (mode === 'resumeRace') return raceAlong(rig, path.steps);
        const tables = agentTables(rig, path, mode);
        await tables.launch();
        await graph.run(path, tables);
        const failedStage = events.find((event) => event.type === 'setup.error');
        const states = path.steps.map((step) => step.state);
        const disposedEarly = events.some(
          (event, k) => event.type === 'agent.dispose' && !states[k]!.matches('ready'),
        );
        if (!failedStage && !disposedEarly) return disposeAndVerify(rig);
        const completed = events.flatMap((event) => (event.type === 'setup.done' ? [event.stage] : []));
        // A dispose only marks the request: the stage under way still completes (and is undone).
        if (!failedStage && path.state.matches('creating')) completed.push(stageOf(path.state));
        return rollbackAndVerify(rig, {
          error: (error) => {
            if (failedStage?.stage === 'session') expect(error).toBe(sessionError);
            else if (failedStage?.stage === 'servers') expect(error).toBeInstanceOf(McpServerError);
            else if (failedStage) expect(error).toBeInstanceOf(ConfigError);
            else expect(error).toBeInstanceOf(AgentStateError);
          },
          completed,
          final: failedStage ? 'failed' : 'disposed',
        });
      });
    }
  });
}

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

const graphFor = (sessionEndHooks: boolean, startsServers = false, isolated = false) =>
  chartModel(agentMachine, {
    input: agentInput(sessionEndHooks, startsServers, isolated),
    events: agentEvents,
    serializeState: serializeAgent,
    limit: 5_000,
  });
type AgentGraph = ReturnType<typeof graphFor>;
type AgentPath = ReturnType<AgentGraph['shortestPaths']>[number];

/** Drives one path through a real agent (a rig configured like the chart's input), then checks its end. */
async function drive(graph: AgentGraph, path: AgentPath, sessionEndHooks: boolean): Promise<void> {
  const events = eventsOf(path);
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
}

const nameOf = (path: AgentPath) =>
  `${pathName(path, labelAgentEvent, { join: ' > ', empty: '(created)' })} → ${JSON.stringify(path.state.value)}`;

// Without `sessionEnd` hooks a dispose goes straight from the turn's end to `flushing`; with them it
// waits in `disposing.endingSession`. Both charts' paths are driven, each on a runtime configured alike.
// These agents start no MCP servers: creation skips the servers stage and dispose the `closing` one.
for (const sessionEndHooks of [false, true]) {
  const graph = graphFor(sessionEndHooks);
  const paths = graph.shortestPaths();
  describe(`agent chart graph paths${sessionEndHooks ? ', with sessionEnd hooks' : ''}`, () => {
    it('has the expected number of shortest paths', () => {
      // `disposing.endingSession` adds one resting combination for each of the 8 ways (held flag, queued
      // channels) a dispose reaches it. 11 fewer than with servers: the servers stage's failure and the
      // rollbacks of dispose requested while it ran.
      expect(paths).toHaveLength(sessionEndHooks ? 89 : 81);
      const resting = paths.filter((path) => path.state.matches({ disposing: 'endingSession' }));
      expect(resting).toHaveLength(sessionEndHooks ? 8 : 0);
      const through = paths.filter((path) =>
        path.steps.some((step) => step.event.type === 'hook.sessionEnd'),
      );
      // Past the hook: `flushing`, `revoking` and `disposed`, for each of the 8 (no `closing` here).
      expect(through).toHaveLength(sessionEndHooks ? 24 : 0);
      const entered = (state: object) =>
        paths.some((path) => path.steps.some((step) => step.state.matches(state)));
      expect([entered({ creating: 'servers' }), entered({ disposing: 'closing' })]).toEqual([false, false]);
    });

    for (const path of paths) it(nameOf(path), () => drive(graph, path, sessionEndHooks));
  });
}

// An agent that starts MCP servers of its own has both stages. Its paths through a servers stage that
// fails are driven with a server whose process exits before the handshake; the ones where the servers
// start and close are the MCP lifecycle suite's (test/mcp/lifecycle.test.ts), with real servers.
describe('agent chart graph paths, an agent that starts MCP servers', () => {
  const graph = graphFor(false, true);
  const paths = graph.shortestPaths();
  const failing = paths.filter((path) => modeOf(eventsOf(path)) === 'badServer');
  it('has the expected number of shortest paths, and of those where its servers fail', () => {
    expect(paths).toHaveLength(92);
    expect(failing).toHaveLength(1);
    expect(paths.some((path) => path.state.matches({ disposing: 'closing' }))).toBe(true);
  });
  for (const path of failing) it(nameOf(path), () => drive(graph, path, false));
});

// An isolated agent (`isolation: 'worktree'`) has a worktree stage after the session one and a
// `finishingWorktree` stage of dispose before `revoking`. Its paths are counted here and the new ones named;
// they are driven with real git repositories by the worktree suites (test/worktrees), not by this rig.
describe('agent chart graph paths, an isolated agent', () => {
  const plain = graphFor(false).shortestPaths();
  const paths = graphFor(false, false, true).shortestPaths();
  it('has the expected number of shortest paths, 12 more than without isolation, at the two stages', () => {
    expect(paths).toHaveLength(93);
    const through = (state: object) =>
      paths.filter((path) => path.steps.some((step) => step.state.matches(state))).length;
    // Every path past the session stage goes through the worktree stage; dispose's stage is on 24 paths.
    expect([through({ creating: 'worktree' }), through({ disposing: 'finishingWorktree' })]).toEqual([
      87, 24,
    ]);
    // A path is new when, without its worktree events, the chart without isolation has no such path.
    const withoutWorktree = (path: AgentPath) =>
      JSON.stringify([
        eventsOf(path)
          .filter(
            (event) =>
              !('stage' in event && event.stage === 'worktree') && event.type !== 'worktree.finished',
          )
          .map(labelAgentEvent),
        path.state.value,
      ]);
    const known = new Set(plain.map(withoutWorktree));
    const added = paths.filter((path) => !known.has(withoutWorktree(path)));
    const creation = added.filter((path) => !path.state.matches('disposing')).map(nameOf);
    // Resting in the stage, its failure, a dispose while it runs, and that dispose's rollback.
    expect(creation).toEqual([
      'setup.done:session → {"creating":"worktree"}',
      'setup.done:session > setup.error:worktree → "rollingBack"',
      'setup.done:session > agent.dispose → {"creating":"worktree"}',
      'setup.done:session > agent.dispose > setup.done:worktree → "rollingBack"',
    ]);
    // Resting in `finishingWorktree`: one for each of the 8 ways (held flag, queued channels) dispose
    // reaches it, as for `endingSession` with sessionEnd hooks.
    const finishing = added.filter((path) => path.state.matches({ disposing: 'finishingWorktree' }));
    expect([added.length, finishing.length]).toEqual([12, 8]);
  });
});

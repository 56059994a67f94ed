// What `npm run diagrams` and `agentchart diagrams` draw: the statecharts as Mermaid, and the README
// of diagrams/ that shows them with a paragraph each. Pure: the same machines always give the same text.
import type { AnyStateMachine } from 'xstate';
import { agentMachine } from '../machines/agent.ts';
import { stepMachine } from '../machines/step.ts';
import { supervisionMachine } from '../machines/supervision.ts';
import { toolBatchMachine } from '../machines/tool-batch.ts';
import { turnMachine } from '../machines/turn.ts';
import { toMermaid } from './mermaid.ts';

/** A machine drawn into `diagrams/`, with the paragraph the README shows above it. */
type DiagramSource = {
  name: string;
  exportName: string;
  file: string;
  machine: AnyStateMachine;
  about: string;
};

const sources: DiagramSource[] = [
  {
    name: 'agent',
    exportName: 'agentMachine',
    file: 'src/machines/agent.ts',
    machine: agentMachine,
    about:
      'The lifecycle of one agent. `creating` runs the setup stages in order (session, tools, publish); a ' +
      '`setup.error`, or a dispose asked for during creation, leads to `rollingBack`, which undoes the ' +
      'completed stages in reverse, one `undo.done` at a time, and ends in `failed` (or in `disposed` when ' +
      'a dispose, not a failure, stopped the creation). `ready` moves ' +
      'between `idle` and `running` (one turn actor alive) as waking input arrives and turns finish; an ' +
      'agent resumed from a log whose turn was left waiting goes straight back to `running` with that turn ' +
      '(`[resuming]`); ' +
      '`agent.compact` wakes an idle agent too (a turn that only compacts) or is passed to the running turn. ' +
      '`agent.dispose` from `ready` walks through `disposing`: cancel the turn if one runs, wait for it, ' +
      'tell the `sessionEnd` hooks (`endingSession`, bounded in time), flush the log, revoke, then `disposed`.',
  },
  {
    name: 'turn',
    exportName: 'turnMachine',
    file: 'src/machines/turn.ts',
    machine: turnMachine,
    about:
      'One turn: the steps that answer one batch of input. `created` waits for `turn.begin`, `starting` ' +
      'logs `turn.start`, `preStep` claims next-step input and, when a pre-step hook is configured, waits ' +
      'for it to allow or veto the step. `stepping` runs one step actor; on `done(step)`, `deciding` tries ' +
      'its guards in the order drawn and either loops back to `preStep`, goes through `compacting` first ' +
      '(the host asked with `agent.compact`, or the last request filled the window past the threshold: the ' +
      'step actor then runs a compaction instead of a step), or goes to `ending`, which logs `turn.end` and ' +
      'waits for the log flush before the final `done`. `turn.resume` takes a turn that a stopped process ' +
      'left waiting from `created` straight back to `stepping`, its step resumed with it. Two hook waits: ' +
      'with `userMessage` hooks, `starting` goes through `screening`, where the hooks may rewrite the ' +
      'follow-ups or block them (`hook.userMessage`; all blocked ends the turn `blocked`); with `stop` hooks, ' +
      'a turn the model ended goes through `stopping`, where a refusal (`hook.stop` with a message) goes back ' +
      'to `deciding` for another step, at most `maxStopRefusals` times per turn. A compaction goes through ' +
      '`compactionBegins`, which with `preCompact` hooks waits in `preCompacting` until the observers have ' +
      'been told (`hook.preCompact`). When the model is done while background children it started (with ' +
      '`wait`) have not reported, the turn rests in `waitingForAgents` until a result, a message or a stop ' +
      "comes in. A typed run (`agent.run(prompt, { output })`) checks the model's final answer in " +
      '`checkingOutput`, only once the turn waits for no child: valid, the turn goes on to end; invalid with ' +
      'retries left, back to `deciding` for another step that reads why; past `maxOutputRetries`, `ending` ' +
      'with `invalid_output`.',
  },
  {
    name: 'step',
    exportName: 'stepMachine',
    file: 'src/machines/step.ts',
    machine: stepMachine,
    about:
      'One model request and the tools it asks for. `preparing` logs `step.start`, `requesting` streams ' +
      'from the model call. A `model.done` with tool calls (the inline guard drawn as `[guarded]`) goes ' +
      'to `executingTools` until the tool batch is done; without tool calls the step is `done`. A ' +
      '`model.error` goes to `recovering`, where the retry policy either schedules another attempt ' +
      '(`waitingToRetry` until `retry.due`) or gives up. `step.cancel` ends a waiting step at once; ' +
      'while tools run it is passed on to the batch, which settles every call before it reports done. ' +
      'A compaction is served by the same states: `step.begin` with a compaction goes straight to ' +
      '`requesting` (no `step.start`) and ends on `compaction.done` or `compaction.skipped`; a first ' +
      '`context_overflow` of a step logs the attempt and requests a compaction, then the step again. ' +
      '`step.resume` takes a step whose answer is in the log back to `executingTools` and resumes its batch. ' +
      'With `requestError` hooks, `recovering` first waits in `hookingError`: the hooks may retry after a ' +
      'delay they name or give up (`hook.requestError`), in place of the retry policy, within `maxAttempts`. ' +
      'With `request` hooks, `preparing` first waits in `hookingRequest`: the hooks may change the system ' +
      'prompt or narrow the tools of the request (`hook.request`, logged before it is made).',
  },
  {
    name: 'tool-batch',
    exportName: 'toolBatchMachine',
    file: 'src/machines/tool-batch.ts',
    machine: toolBatchMachine,
    about:
      'The tool calls of one step. `checking` logs every call and waits for `batch.checked` (arguments ' +
      'validated, permissions decided); `running` starts calls in model order, side by side where the ' +
      'tools allow it, and commits each `tool.settled` in model order. A call that needs approval is a ' +
      'barrier: `awaitingApproval` first makes the log durable (`persisting`, until `log.flushed`), then ' +
      'asks (`asking`) and goes back to `running` on `tool.approve` or `tool.deny`. `batch.resume` ' +
      'continues a batch a stopped process left waiting: `resuming` checks again the calls without a ' +
      'result, and the same question is asked again. `batch.cancel` leads to `cancelling`, which starts ' +
      'nothing new and waits for running calls to settle. Both reach `done` once every call has a ' +
      'committed result (`allCommitted`). With `preTool` hooks, a checked batch first waits in `hooking` ' +
      'until the hooks have decided about every call that may run (`hook.preTool`: deny, ask, allow or a ' +
      'rewritten input); with `postTool` hooks, a finished call holds its result back inside `running` until ' +
      '`hook.postTool` gives the result the model reads. A cancel stops the hooks and still commits every result.',
  },
  {
    name: 'supervision',
    exportName: 'supervisionMachine',
    file: 'src/machines/supervision.ts',
    machine: supervisionMachine,
    about:
      'The supervision of one background child (or job task) whose policy restarts it on failure. `running` ' +
      "watches the child's turn: `child.ended` with `model_error`, or `child.crashed` (its run broke off), " +
      "is a failure: with a restart left (`[restarts]`) it is reported (`agent.restarted` in the parent's " +
      'log) and `backingOff` waits on the injected clock (`retry.due`; the wait doubles at each restart), ' +
      "then `restarting` brings the child back from its own log (`session.restarted` in the child's, the " +
      'work given again) and goes back to `running`; with none left (`[spent]`) the failure is escalated as ' +
      "the child's result (`escalated`). Any other end of the turn is `done`. `supervision.stop` (the parent " +
      'cancelled, `stop_agent`, dispose) ends a wait or a restart in `stopped`; while the child runs, the ' +
      'cancel the runtime sends it ends its turn `canceled` instead. A resumed parent that finds a restart ' +
      'decided but not carried out starts in `backingOff` with what is left of its wait (`[restartPending]`).',
  },
];

/** One generated file: its name inside the diagrams folder and its full text. */
export type DiagramFile = { name: string; content: string };

/**
 * The files `npm run diagrams` writes: `<name>.mmd` for each statechart and a
 * `README.md` that shows them all. Pure: the same machines always give the same text.
 */
export function diagramFiles(): DiagramFile[] {
  const diagrams = sources.map((source) => ({ source, content: toMermaid(source.machine) }));
  return [
    ...diagrams.map(({ source, content }) => ({ name: `${source.name}.mmd`, content })),
    { name: 'README.md', content: renderReadme(diagrams) },
  ];
}

function renderReadme(diagrams: { source: DiagramSource; content: string }[]): string {
  const sections = diagrams.map(({ source, content }) =>
    [
      `## ${source.exportName}`,
      '',
      `From \`${source.file}\`; the diagram alone is in [${source.name}.mmd](${source.name}.mmd).`,
      '',
      source.about,
      '',
      '```mermaid',
      content.trimEnd(),
      '```',
    ].join('\n'),
  );
  const intro = [
    '<!-- Generated by `npm run diagrams`. Do not edit: change a machine in src/machines and regenerate. -->',
    '',
    '# Statechart diagrams',
    '',
    'These diagrams are drawn from the statecharts in `src/machines/` by `npm run diagrams`, and the ' +
      'test suite fails when they are out of date. Each arrow carries its event and, in brackets, its ' +
      'guard: `always` marks an eventless transition, `done(x)` the completion of the child actor `x`, ' +
      'and `[guarded]` an inline guard. Transitions that only run actions (no target) are not drawn.',
  ].join('\n');
  return `${[intro, ...sections].join('\n\n')}\n`;
}

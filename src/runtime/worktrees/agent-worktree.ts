// One isolated agent's worktree, as its body holds it: the plan made at launch, what the creation stage
// made (so its undo removes exactly that), and how dispose finished it.
import { mkdir } from 'node:fs/promises';
import {
  type AgentWorktreeState,
  closeWorktree,
  finishWorktree,
  openWorktree,
  type WorktreeMade,
  type WorktreeResult,
} from './worktree-life.ts';
import type { WorktreePlan, WorktreeRecord } from './worktree-plan.ts';

export class AgentWorktree {
  private made: WorktreeMade | undefined;
  private finished: WorktreeResult | undefined;

  constructor(
    private readonly plan: WorktreePlan,
    private readonly sessionId: string,
    /** A resumed session's worktree is found again (or made again), never refused for being there. */
    private readonly resumed: boolean,
  ) {}

  /** What `session.start` records (`config.worktree`). */
  get record(): WorktreeRecord {
    return this.plan.record;
  }

  /** How dispose finished it; before that, where it is (kept until then). */
  get state(): AgentWorktreeState {
    return this.finished ?? this.plan.record;
  }

  /** The creation stage: makes the worktree, or finds it again (a resume). Reports nothing to the chart. */
  async open(): Promise<Record<string, never>> {
    this.made = await openWorktree(this.plan.record, this.resumed);
    // A workspace folder git does not track (empty, untracked, ignored) is not in the checkout: made here.
    await mkdir(this.plan.cwd, { recursive: true });
    return {};
  }

  /** The stage's undo: removes what `open` made, nothing else. */
  async undo(): Promise<void> {
    const made = this.made;
    this.made = undefined;
    if (made) await closeWorktree(this.plan.record, made);
  }

  /** The dispose stage: commits what was left, then removes (unchanged) or keeps worktree and branch. */
  async finish(): Promise<void> {
    this.finished = await finishWorktree(this.plan.record, this.sessionId);
  }
}

import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.WorkspaceError');

/** Why a path was refused by the workspace confinement. */
export type WorkspaceErrorReason = 'outside' | 'nul_byte' | 'not_found' | 'not_writable';

/**
 * A tool was given a path that leaves the workspace root (through `..`, an absolute path or a symlink),
 * contains a NUL byte, or does not exist where it must. The message is written for the model to act on.
 */
export class WorkspaceError extends AgentchartError<'workspace'> {
  readonly [marker] = true;
  readonly reason: WorkspaceErrorReason;
  /** The path exactly as the caller gave it. */
  readonly path: string;

  constructor(reason: WorkspaceErrorReason, path: string, message: string, options?: { cause?: unknown }) {
    super('workspace', message, options);
    this.name = 'WorkspaceError';
    this.reason = reason;
    this.path = path;
  }

  static override isInstance(value: unknown): value is WorkspaceError {
    return hasMarker(value, marker);
  }
}

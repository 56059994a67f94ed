import type { InspectorServer } from '../../inspector/server.ts';
import type { PermissionMode } from '../../permissions/modes.ts';
import type { Provider } from '../../providers/types.ts';
import type { Agent } from '../../runtime/agent-handle.ts';
import type { AgentSystem } from '../../runtime/create-agent-system.ts';
import { fileStore } from '../../session/file-store.ts';
import { type AgentFlags, providerFor, workspaceOf } from '../agent-flags.ts';
import { cliAgentSystem, wantsBackgroundAgents } from '../agent-system.ts';
import { ChatTerminal } from '../chat/chat-terminal.ts';
import { attachChatView, type ChatView, chatStatus } from '../chat/chat-view.ts';
import {
  farewellLines,
  firstSession,
  type SessionChoice,
  sessionByIdOrPath,
} from '../chat/session-lookup.ts';
import { runSlashCommand, type SlashContext, sessionUsage } from '../chat/slash-commands.ts';
import { type CliPermissions, permissionsOf } from '../cli-permissions.ts';
import { recordedMode } from '../recorded-session.ts';
import { sessionSearchFolders, sessionsFolder } from '../session-folders.ts';
import { type CliIo, line, painter, wantsColor } from '../terminal/io.ts';
import { StatusLine } from '../terminal/status-line.ts';

export type ChatFlags = AgentFlags & { continue?: boolean; resume?: string };

/** One open agent of the chat: its system, the live view and the session it writes. */
type Open = { system: AgentSystem; agent: Agent; view: ChatView; dir: string; closePrompt: () => void };

/**
 * `agentchart` (or `agentchart chat`): an interactive session. Idle, a line is a task; while a turn runs,
 * a line is a steer; Esc cancels the turn; slash commands change the session; Ctrl-C twice (or Ctrl-D)
 * leaves, with the log flushed. Resolves with 0.
 */
export async function chatCommand(flags: ChatFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const sessionsDir = sessionsFolder(cwd, io.env, flags.sessionDir, io.cwd);
  const folders = sessionSearchFolders(cwd, io.env, flags.sessionDir, io.cwd);
  const first = await firstSession(flags, folders, io.cwd);
  if (flags.continue && !first) line(io.stdout, `No earlier session in ${sessionsDir}: starting a new one.`);
  const permissions = await permissionsOf(io, flags, cwd);
  const chat = new Chat(io, flags, cwd, permissions, await providerFor(io, flags));
  return chat.start(first ?? { dir: sessionsDir, sessionId: '' });
}

class Chat implements SlashContext {
  private open: Open | undefined;
  private running: Promise<unknown> | undefined;
  private interrupts = 0;
  /** Lines typed while a session opens, taken once it is open; `undefined` once the chat is leaving. */
  private earlyLines: string[] | undefined = [];
  private inspector: InspectorServer | undefined;
  // `--mode`/`--yes` rule the first session the chat opens; later ones (and a resumed first one without
  // them) run in the mode their log recorded last.
  private modeFromFlags: PermissionMode | undefined;
  private finished!: (code: number) => void;
  private readonly terminal: ChatTerminal;
  private readonly paint: ReturnType<typeof painter>;
  /** Everything the chat writes goes through it: notices start on lines of their own, the live line redraws. */
  private readonly status: StatusLine;
  readonly io: CliIo;
  states: boolean;

  constructor(
    io: CliIo,
    private readonly flags: ChatFlags,
    readonly cwd: string,
    private permissions: CliPermissions,
    private model: { provider: Provider; description: string },
  ) {
    this.states = flags.states ?? false;
    this.modeFromFlags = flags.mode !== undefined || flags.yes ? permissions.mode : undefined;
    this.paint = painter(wantsColor(io.stdout, io.env));
    // No live line while the person types or a question waits: it would overwrite their line.
    this.status = new StatusLine(io.stdout, () => this.terminal.typing === '' && !this.terminal.asking);
    this.io = { ...io, stdout: this.status.writer };
    this.terminal = new ChatTerminal(io.stdin, this.io.stdout, {
      line: (text) => this.onLine(text),
      escape: () => this.onEscape(),
      interrupt: () => this.onInterrupt(),
      end: () => void this.exit(),
      // Before a session is open there is nothing to close: the terminal has been given back already.
      leave: (code) => void (this.open ? this.exit(code) : this.finished(code)),
    });
  }

  async start(first: SessionChoice): Promise<number> {
    const done = new Promise<number>((resolve) => (this.finished = resolve));
    try {
      await this.openSession(first);
    } catch (error) {
      this.terminal.close();
      throw error;
    }
    this.say('Type a task. While it runs, a line steers it; Esc cancels the turn; /help lists commands.');
    this.terminal.prompt();
    this.takeEarlyLines();
    return done;
  }

  get agent(): Agent {
    return this.open!.agent;
  }

  /** The agent's mode now (a plan accepted switches it), or the one the next session opens in. */
  get mode(): PermissionMode {
    return this.open ? this.agent.permissionMode : this.permissions.mode;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  say(text: string): void {
    this.status.endLine();
    line(this.io.stdout, text);
  }

  setStates(on: boolean): void {
    this.states = on;
    this.open?.view.setStates(on);
  }

  /**
   * `/mode`: the open agent switches (logged as `mode.changed{ by: 'user' }`), also while a turn runs —
   * its next step offers the new mode's tools. The session stays open, so it keeps one `session.end`.
   */
  async setMode(mode: PermissionMode): Promise<void> {
    this.permissions = { ...this.permissions, mode };
    if (this.agent.permissionMode === mode) return this.say(`(already in mode ${mode})`);
    this.agent.setPermissionMode(mode, { by: 'user' });
  }

  async setModel(name: string): Promise<void> {
    this.model = await providerFor(this.io, { ...this.flags, model: name });
    await this.reopen(this.agent.sessionId);
  }

  async resumeSession(idOrPath: string): Promise<void> {
    const choice = await sessionByIdOrPath(
      idOrPath,
      sessionSearchFolders(this.cwd, this.io.env, this.flags.sessionDir, this.io.cwd),
      this.io.cwd,
    );
    await this.reopen(choice.sessionId, choice.dir);
  }

  async startInspector(): Promise<string> {
    if (!this.inspector) {
      const { startInspector } = await import('../../inspector/server.ts');
      this.inspector = await startInspector(this.open!.system, { port: 0, title: 'agentchart — chat' });
    }
    return this.inspector.url;
  }

  async exit(code = 0): Promise<void> {
    if (!this.open) return;
    this.earlyLines = undefined;
    const { dir } = this.open;
    const sessionId = this.agent.sessionId;
    await this.closeSession();
    this.terminal.close();
    const place = { sessionId, dir, workspace: this.cwd, from: this.io.cwd, env: this.io.env };
    for (const text of farewellLines(place)) this.say(text);
    this.finished(code);
  }

  private onLine(text: string): void {
    // Typed while a session opens (at the start, or during /model and /resume).
    if (!this.open) return void this.earlyLines?.push(text);
    this.interrupts = 0;
    const trimmed = text.trim();
    if (trimmed === '') {
      if (!this.isRunning) this.terminal.prompt();
      return;
    }
    if (trimmed.startsWith('/')) {
      runSlashCommand(this, trimmed)
        .catch((error: unknown) => this.say(`agentchart: ${(error as Error).message}`))
        .finally(() => {
          if (!this.isRunning && this.open) this.terminal.prompt();
        });
      return;
    }
    if (this.isRunning) {
      this.agent.steer(trimmed);
      this.say(this.paint('dim', '(steer: the model reads it at its next step)'));
      return;
    }
    this.runTurn(trimmed);
  }

  private runTurn(task: string): void {
    // The turn's own agent: /exit or /resume may close this session (and open another) while it runs.
    const agent = this.agent;
    const turn = agent.run(task).then(
      async () => {
        // Input queued during the turn (or left after a cancel) may start more turns: wait for all of them.
        await agent.whenIdle();
      },
      (error: unknown) => this.say(`agentchart: ${(error as Error).message}`),
    );
    this.running = turn.finally(() => {
      this.running = undefined;
      if (this.open?.agent !== agent) return;
      this.say(
        this.paint(
          'dim',
          chatStatus(this.agent, this.mode, this.model.provider.model, sessionUsage(this.agent)),
        ),
      );
      this.terminal.prompt();
    });
  }

  private onEscape(): void {
    if (!this.isRunning) return;
    this.terminal.abandonQuestion();
    this.say(this.paint('yellow', '(Esc: cancelling the turn; queued input stays queued)'));
    this.agent.cancel('user');
  }

  private onInterrupt(): void {
    this.interrupts += 1;
    if (this.interrupts >= 2) {
      void this.exit();
      return;
    }
    if (this.isRunning) {
      this.terminal.abandonQuestion();
      this.agent.cancel('user');
    }
    this.say(this.paint('yellow', '(Ctrl-C again to leave; the session is kept)'));
    if (!this.isRunning) this.terminal.prompt();
  }

  private async openSession(choice: SessionChoice): Promise<void> {
    const store = fileStore(choice.dir);
    const chosen = this.modeFromFlags;
    this.modeFromFlags = undefined;
    const resumed = choice.sessionId === '' ? undefined : (await store.load(choice.sessionId)).events;
    const mode = chosen ?? (resumed && recordedMode(resumed)) ?? this.permissions.mode;
    const { system, closePrompt } = cliAgentSystem({
      io: this.io,
      provider: this.model.provider,
      store,
      cwd: this.cwd,
      mode,
      rules: this.permissions.rules,
      mcpServers: this.permissions.mcpServers,
      hooks: this.permissions.hooks,
      ...(this.flags.maxSteps !== undefined ? { maxSteps: this.flags.maxSteps } : {}),
      backgroundAgents: wantsBackgroundAgents(this.flags.backgroundAgents, resumed),
      answers: this.terminal,
      prompt: true,
    });
    try {
      const agent =
        choice.sessionId === '' ? await system.createAgent() : await system.resumeAgent(choice.sessionId);
      const view = attachChatView({ system, agent, io: this.io, status: this.status, states: this.states });
      // A resumed session is in the mode its log recorded last; only the flags of the first one switch it.
      if (chosen !== undefined && agent.permissionMode !== chosen) agent.setPermissionMode(chosen);
      this.permissions = { ...this.permissions, mode: agent.permissionMode };
      this.open = { system, agent, view, dir: choice.dir, closePrompt };
      const how = resumed ? `resumed, ${agent.log().length} events` : 'new session';
      this.say(
        `agentchart: ${this.model.description} · mode ${this.permissions.mode} · ${this.cwd} · ${agent.sessionId} (${how})`,
      );
    } catch (error) {
      closePrompt();
      await system.dispose();
      throw error;
    }
  }

  private async reopen(sessionId: string, dir = this.open!.dir): Promise<void> {
    if (this.isRunning) throw new Error('a turn is running: wait for it to end, or press Esc first');
    await this.closeSession();
    await this.openSession({ dir, sessionId });
    this.takeEarlyLines();
  }

  private takeEarlyLines(): void {
    for (const text of this.earlyLines?.splice(0) ?? []) this.onLine(text);
  }

  private async closeSession(): Promise<void> {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    if (this.inspector) {
      await this.inspector.close();
      this.inspector = undefined;
      this.say('(the inspector stopped with the old session; /inspect starts it again)');
    }
    open.closePrompt();
    await open.system.dispose();
    await open.view.stop();
  }
}

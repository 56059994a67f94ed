// One agent's spans, made from what its session log records (and the live start of a compaction): the
// agent, its turns and steps, each step's model call, tool calls, hooks, approval waits and compactions.
// It reads events only; the charts and the log know nothing of it.
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { Usage } from '../providers/types.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import { genAi, inputMessages, outputMessages, usageAttributes } from './gen-ai-attributes.ts';
import type { OpenTelemetry } from './open-telemetry.ts';

/** What an agent's spans are made from: a logged event, or a live event (`agent.events()`'s shape). */
export type ObservedEvent = { type: string; event?: LogEvent };

type Open = { span: Span; context: Context };

/** How one agent's spans are set up: the tracer, the agent, and where its `invoke_agent` span hangs. */
export type AgentSpansSetup = {
  api: OpenTelemetry;
  tracer: Tracer;
  agentId: string;
  recordContent: boolean;
  /** The context the agent's span is a child of, asked when the span starts (at its first turn). */
  parent: () => Context;
};

export class AgentSpans {
  private agent: Open | undefined;
  private turn: Open | undefined;
  private step: Open | undefined;
  private chat: Span | undefined;
  private compaction: Span | undefined;
  private readonly tools = new Map<string, Open>();
  private readonly approvals = new Map<string, Span>();
  /** The context of the `execute_tool` span of the call that started each child, by child session id. */
  private readonly spawned = new Map<string, Context>();
  private provider = 'unknown';
  private model = 'unknown';
  private turnInput: string[] = [];

  constructor(private readonly setup: AgentSpansSetup) {}

  /** The context a child started by this agent hangs under: the call that started it, else this agent. */
  childParent(childSessionId: string): Context | undefined {
    return this.spawned.get(childSessionId) ?? this.agent?.context;
  }

  observe(observed: ObservedEvent): void {
    if (observed.type === 'compaction.start') this.startCompaction();
    else if (observed.type === 'log' && observed.event) this.onLog(observed.event);
  }

  /** Ends every open span (the agent was disposed, or its log closed). */
  end(): void {
    this.endTurn();
    this.agent?.span.end();
    this.agent = undefined;
  }

  private onLog(event: LogEvent): void {
    if (isEvent(event, 'session.start') || isEvent(event, 'session.resumed')) {
      this.provider = String(event.data.config.provider ?? this.provider);
      this.model = String(event.data.config.model ?? this.model);
    } else if (isEvent(event, 'turn.start')) {
      this.endTurn();
      this.turnInput = [];
      this.turn = this.start('turn', this.agentContext(), { 'agentchart.turn': event.turn ?? 0 });
    } else if (isEvent(event, 'user.message')) {
      if (this.setup.recordContent && this.turn) {
        this.turnInput.push(event.data.content);
        this.turn.span.setAttribute(genAi.inputMessages, inputMessages(this.turnInput));
      }
    } else if (isEvent(event, 'step.start')) {
      this.endStep();
      this.step = this.start('step', this.turnContext(), { 'agentchart.step': event.step ?? 0 });
      this.startChat(event.data.model);
    } else if (isEvent(event, 'assistant.attempt')) this.onAttempt(event.data);
    else if (isEvent(event, 'assistant.message')) this.onAnswer(event.data);
    else if (isEvent(event, 'tool.call')) this.onCall(event.data.callId, event.data.name, event.data.input);
    else if (isEvent(event, 'approval.asked')) this.onApprovalAsked(event.data.callId);
    else if (isEvent(event, 'approval.decided')) {
      const span = this.approvals.get(event.data.callId);
      this.approvals.delete(event.data.callId);
      span?.setAttributes({
        'agentchart.approval.outcome': event.data.outcome,
        'agentchart.approval.by': event.data.by,
      });
      span?.end();
    } else if (isEvent(event, 'hook.decided')) this.onHook(event.data);
    else if (isEvent(event, 'tool.result')) this.onResult(event.data);
    else if (isEvent(event, 'agent.spawned')) {
      const call = this.tools.get(event.data.callId);
      if (call) this.spawned.set(event.data.childSessionId, call.context);
    } else if (isEvent(event, 'compaction')) this.onCompaction(event.data);
    else if (isEvent(event, 'step.end')) this.endStep();
    else if (isEvent(event, 'turn.end')) this.onTurnEnd(event.data);
    else if (isEvent(event, 'session.end')) this.end();
  }

  private start(name: string, parent: Context, attributes: Attributes, kind?: number): Open {
    const { api, tracer } = this.setup;
    const span = tracer.startSpan(name, { attributes, kind: kind ?? api.SpanKind.INTERNAL }, parent);
    return { span, context: api.trace.setSpan(parent, span) };
  }

  private agentContext(): Context {
    if (!this.agent) {
      const { agentId } = this.setup;
      this.agent = this.start(`invoke_agent agentchart`, this.setup.parent(), {
        [genAi.operationName]: 'invoke_agent',
        [genAi.agentId]: agentId,
        [genAi.agentName]: 'agentchart',
        [genAi.conversationId]: agentId,
        [genAi.providerName]: this.provider,
        [genAi.requestModel]: this.model,
      });
    }
    return this.agent.context;
  }

  private turnContext(): Context {
    return this.turn?.context ?? this.agentContext();
  }

  private stepContext(): Context {
    return this.step?.context ?? this.turnContext();
  }

  private startChat(model: string): void {
    const { api, agentId } = this.setup;
    this.chat = this.start(
      `chat ${model}`,
      this.stepContext(),
      {
        [genAi.operationName]: 'chat',
        [genAi.providerName]: this.provider,
        [genAi.requestModel]: model,
        [genAi.conversationId]: agentId,
      },
      api.SpanKind.CLIENT,
    ).span;
  }

  /** A failed attempt is an event of the model call's span; the last (no retry follows) ends it failed. */
  private onAttempt(data: { error: ProviderErrorData; attempt: number; retryInMs?: number }): void {
    const chat = this.chat;
    if (!chat) return;
    chat.addEvent('agentchart.attempt.failed', {
      [genAi.errorType]: data.error.kind,
      'agentchart.attempt': data.attempt,
      ...(data.retryInMs !== undefined ? { 'agentchart.retry_in_ms': data.retryInMs } : {}),
      ...(data.error.status !== undefined ? { 'http.response.status_code': data.error.status } : {}),
    });
    if (data.retryInMs !== undefined) return;
    chat.setAttribute(genAi.errorType, data.error.kind);
    chat.setStatus({ code: this.setup.api.SpanStatusCode.ERROR, message: data.error.message });
    chat.end();
    this.chat = undefined;
  }

  private onAnswer(data: {
    text: string;
    toolCalls: { id: string; name: string; input: unknown }[];
    usage: Usage;
    stopReason: string;
  }): void {
    const chat = this.chat;
    if (!chat) return;
    chat.setAttributes({ ...usageAttributes(data.usage), [genAi.finishReasons]: [data.stopReason] });
    if (this.setup.recordContent)
      chat.setAttribute(genAi.outputMessages, outputMessages(data.text, data.toolCalls));
    chat.end();
    this.chat = undefined;
  }

  private onCall(callId: string, name: string, input: unknown): void {
    const call = this.start(`execute_tool ${name}`, this.stepContext(), {
      [genAi.operationName]: 'execute_tool',
      [genAi.toolName]: name,
      [genAi.toolCallId]: callId,
      [genAi.toolType]: 'function',
      ...(this.setup.recordContent ? { [genAi.toolArguments]: JSON.stringify(input) } : {}),
    });
    this.tools.set(callId, call);
  }

  private onApprovalAsked(callId: string): void {
    const parent = this.tools.get(callId)?.context ?? this.stepContext();
    this.approvals.set(callId, this.start('approval', parent, { [genAi.toolCallId]: callId }).span);
  }

  /** The log records when a hook decided, not when it began: its span marks that moment. */
  private onHook(data: { point: string; hook: string; outcome: string; callId?: string }): void {
    const parent =
      (data.callId !== undefined ? this.tools.get(data.callId)?.context : undefined) ?? this.stepContext();
    const attributes = {
      'agentchart.hook.point': data.point,
      'agentchart.hook.name': data.hook,
      'agentchart.hook.outcome': data.outcome,
    };
    this.start(`hook ${data.point}`, parent, attributes).span.end();
  }

  private onResult(data: { callId: string; outcome: string; content: string; error?: string }): void {
    const call = this.tools.get(data.callId);
    if (!call) return;
    this.tools.delete(data.callId);
    call.span.setAttribute('agentchart.tool.outcome', data.outcome);
    if (this.setup.recordContent) call.span.setAttribute(genAi.toolResult, data.content);
    if (data.outcome !== 'ok') {
      call.span.setAttribute(genAi.errorType, data.outcome);
      call.span.setStatus({
        code: this.setup.api.SpanStatusCode.ERROR,
        ...(data.error ? { message: data.error } : {}),
      });
    }
    call.span.end();
  }

  private startCompaction(): void {
    this.compaction?.end();
    this.compaction = this.start('compaction', this.stepContext(), {}).span;
  }

  private onCompaction(data: { trigger: string; tokensBefore: number; usage?: Usage }): void {
    const span = this.compaction ?? this.start('compaction', this.stepContext(), {}).span;
    this.compaction = undefined;
    span.setAttributes({
      'agentchart.compaction.trigger': data.trigger,
      'agentchart.compaction.tokens_before': data.tokensBefore,
      ...(data.usage ? usageAttributes(data.usage) : {}),
    });
    span.end();
  }

  private onTurnEnd(data: { reason: string; usage: Usage; error?: ProviderErrorData }): void {
    const turn = this.turn;
    if (turn) {
      turn.span.setAttributes({ 'agentchart.turn.reason': data.reason, ...usageAttributes(data.usage) });
      if (data.error) {
        turn.span.setAttribute(genAi.errorType, data.error.kind);
        turn.span.setStatus({ code: this.setup.api.SpanStatusCode.ERROR, message: data.error.message });
      }
    }
    this.endTurn();
  }

  private endStep(): void {
    for (const span of this.approvals.values()) span.end();
    this.approvals.clear();
    for (const call of this.tools.values()) call.span.end();
    this.tools.clear();
    this.chat?.end();
    this.chat = undefined;
    this.compaction?.end();
    this.compaction = undefined;
    this.step?.span.end();
    this.step = undefined;
  }

  private endTurn(): void {
    this.endStep();
    this.turn?.span.end();
    this.turn = undefined;
  }
}

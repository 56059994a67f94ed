import type { ProviderErrorData } from '../errors/provider-error.ts';
import type { ModelDoneEvent } from '../machines/step-types.ts';
import { tokenCount } from '../providers/sse-common.ts';
import {
  type Citation,
  type ModelStopReason,
  modelStopReasons,
  type ProviderPart,
  type ToolCallRequest,
  type Usage,
} from '../providers/types.ts';
import { jsonRoundTrip } from '../session/json-value.ts';

type ModelErrorEvent = { type: 'model.error'; error: ProviderErrorData };

/** What one provider event means for the step: a delta to forward, or the response's end. */
export type Reading =
  | { type: 'text.delta'; text: string }
  | { type: 'thinking.delta'; text: string }
  | ModelDoneEvent
  | ModelErrorEvent;

const stopReasons: ReadonlySet<string> = new Set(modelStopReasons);
const usageKeys = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;
// A provider that repeats one defect a million times must not grow the log by a million notes.
const maxNotes = 20;

/**
 * Reads the events of one model response exactly as a provider yields them (a plain JavaScript provider
 * has no type checker), so that everything the step logs is loadable and what the model asked for is
 * told apart from what it did not. Per defect:
 * - **repaired, with a note** on the logged `assistant.message`: a tool call whose id is missing, empty,
 *   not a string or already used in this response gets `call_<turn>_<step>_<position>`; a call without
 *   input gets `{}`; a stop reason this runtime does not know becomes `other`; a token count that is not
 *   a finite, non-negative integer is counted as 0 (a fraction is rounded down);
 * - **dropped, with a note**: an event of unknown type (a newer provider), a thinking delta without
 *   text, a provider part without string `provider`/`type` or with data JSON cannot hold, a citation
 *   whose source is unknown, whose texts are not strings or whose range is not two ordered offsets;
 * - **`bad_response`** (not retried): an event that is not an object, a text delta whose text is not a
 *   string, a tool call without a call, without a name, or with input JSON cannot hold.
 * Tool inputs and provider-part data are kept as the log will read them back (a JSON round trip), so a
 * resumed session sees exactly what this one saw.
 */
export class ResponseReader {
  private text = '';
  private usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  private readonly toolCalls: ToolCallRequest[] = [];
  private readonly ids = new Set<string>();
  private readonly providerParts: ProviderPart[] = [];
  private readonly citations: Citation[] = [];
  private readonly notes: string[] = [];
  private notesLeftOut = 0;

  constructor(
    private readonly where: { turn: number; step: number },
    /** Turns whatever an `error` event carries into classified error data. */
    private readonly errorData: (error: unknown) => ProviderErrorData,
  ) {}

  /** The text of the response so far: every text delta read. */
  get streamedText(): string {
    return this.text;
  }

  /** Reads one event; `undefined` means there is nothing to forward yet. */
  read(event: unknown): Reading | undefined {
    if (typeof event !== 'object' || event === null) {
      return malformed(`the provider yielded ${describe(event)} instead of an event`);
    }
    const fields = event as Record<string, unknown>;
    switch (fields.type) {
      case 'text.delta': {
        // Read once: a getter could answer differently the second time.
        const text = fields.text;
        if (typeof text !== 'string') return malformed(`a text delta's text is ${describe(text)}`);
        this.text += text;
        return { type: 'text.delta', text };
      }
      case 'thinking.delta': {
        const text = fields.text;
        if (typeof text === 'string') return { type: 'thinking.delta', text };
        this.note(`a thinking delta whose text is ${describe(text)} was dropped`);
        return undefined;
      }
      case 'tool_call':
        return this.readCall(fields.call);
      case 'provider_part':
        this.readPart(fields.part);
        return undefined;
      case 'citation':
        this.readCitation(fields.citation);
        return undefined;
      case 'usage':
        this.readUsage(fields.usage);
        return undefined;
      case 'done':
        return this.done(fields.stopReason);
      case 'error':
        return { type: 'model.error', error: this.errorData(fields.error) };
      default:
        this.note(`an event of unknown type ${describe(fields.type)} was dropped`);
        return undefined;
    }
  }

  /** The error for a stream that ended without `done` or `error`. */
  endedEarly(): ModelErrorEvent {
    const message = 'the model stream ended without a stop reason';
    return { type: 'model.error', error: { kind: 'network', message, retryable: true } };
  }

  private readCall(call: unknown): Reading | undefined {
    const position = this.toolCalls.length;
    if (typeof call !== 'object' || call === null) {
      return malformed(`tool call ${position} carries ${describe(call)} instead of a call`);
    }
    const { id, name, input } = call as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') {
      return malformed(
        `tool call ${position} has ${name === '' ? 'an empty name' : `the name ${describe(name)}`}`,
      );
    }
    let value: unknown = {};
    if (input === undefined) {
      this.note(`tool call ${position} ("${name}") had no input; {} was used`);
    } else {
      const readBack = jsonRoundTrip(input);
      if (!readBack.ok) {
        return malformed(
          `the input of tool call ${position} ("${name}") cannot be logged: ${readBack.reason}`,
        );
      }
      value = readBack.value;
    }
    this.toolCalls.push({ id: this.uniqueId(id, position, name), name, input: value });
    return undefined;
  }

  private uniqueId(id: unknown, position: number, name: string): string {
    const usable = typeof id === 'string' && id !== '';
    if (usable && !this.ids.has(id)) {
      this.ids.add(id);
      return id;
    }
    let made = `call_${this.where.turn}_${this.where.step}_${position}`;
    while (this.ids.has(made)) made += '_';
    this.ids.add(made);
    const why = usable ? `repeated the id "${id}"` : `had ${describe(id)} as its id`;
    this.note(`tool call ${position} ("${name}") ${why}; it was given "${made}"`);
    return made;
  }

  private readPart(part: unknown): void {
    const fields = typeof part === 'object' && part !== null ? (part as Record<string, unknown>) : {};
    const { provider, type, data } = fields;
    if (typeof provider !== 'string' || typeof type !== 'string') {
      this.note(`a provider part without a string provider and type was dropped`);
      return;
    }
    const readBack = jsonRoundTrip(data);
    if (!readBack.ok) {
      this.note(`a "${provider}" part of type "${type}" was dropped: ${readBack.reason}`);
      return;
    }
    this.providerParts.push({ provider, type, data: readBack.value });
  }

  private readCitation(citation: unknown): void {
    const read = readCitation(citation);
    if (typeof read === 'string') this.note(`a citation was dropped: ${read}`);
    else this.citations.push(read);
  }

  private readUsage(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) {
      this.note(`a usage event carrying ${describe(usage)} was dropped`);
      return;
    }
    const next = { ...this.usage };
    for (const key of usageKeys) {
      const raw = (usage as Partial<Record<string, unknown>>)[key];
      if (raw === undefined) continue;
      const count = tokenCount(raw);
      if (count !== raw) this.note(`the usage count ${key} ${describe(raw)} was counted as ${count}`);
      next[key] = Math.min(Number.MAX_SAFE_INTEGER, next[key] + count);
    }
    this.usage = next;
  }

  private done(stopReason: unknown): Reading {
    let reason = stopReason as ModelStopReason;
    if (typeof stopReason !== 'string' || !stopReasons.has(stopReason)) {
      this.note(`the stop reason ${describe(stopReason)} is not known; "other" was used`);
      reason = 'other';
    }
    if (this.notesLeftOut > 0) this.notes.push(`${this.notesLeftOut} more notes were left out`);
    const done: ModelDoneEvent = {
      type: 'model.done',
      text: this.text,
      toolCalls: this.toolCalls,
      usage: this.usage,
      stopReason: reason,
    };
    if (this.providerParts.length > 0) done.providerParts = this.providerParts;
    if (this.citations.length > 0) done.citations = this.citations;
    if (this.notes.length > 0) done.notes = this.notes;
    return done;
  }

  private note(text: string): void {
    if (this.notes.length < maxNotes) this.notes.push(text);
    else this.notesLeftOut++;
  }
}

const citationSources: ReadonlySet<string> = new Set(['url', 'document', 'file']);
const citationTexts = ['url', 'title', 'citedText', 'fileId'] as const;

/** A citation as the log keeps it (only the documented fields), or why it cannot be kept. */
function readCitation(value: unknown): Citation | string {
  if (typeof value !== 'object' || value === null) return `it was ${describe(value)}`;
  const fields = value as Record<string, unknown>;
  const source = fields.source;
  if (typeof source !== 'string' || !citationSources.has(source)) return `its source is ${describe(source)}`;
  const citation: Citation = { source: source as Citation['source'] };
  for (const key of citationTexts) {
    const text = fields[key];
    if (text === undefined) continue;
    if (typeof text !== 'string') return `its ${key} is ${describe(text)}`;
    citation[key] = text;
  }
  const { start, end } = fields;
  if (start === undefined && end === undefined) return citation;
  if (!isOffset(start) || !isOffset(end) || start > end) {
    return `its range is ${describe(start)} to ${describe(end)}`;
  }
  return { ...citation, start, end };
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function malformed(message: string): ModelErrorEvent {
  return {
    type: 'model.error',
    error: { kind: 'bad_response', message: `malformed model response: ${message}`, retryable: false },
  };
}

/** A short description of a value for a note: its type, and the value itself when it is short. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`;
    default:
      return `a value of type ${typeof value}`;
  }
}

import { z } from 'zod/v4';
import { must, parseHostValue } from '../core/host-schema.ts';
import { checkSessionId } from '../core/safe-id.ts';
import { ConfigError } from '../errors/config-error.ts';
import { formatLogLine, parseLogLine, validateSequence } from './schema.ts';
import type { LoadedSession, LogEvent, SessionLock, SessionStore } from './types.ts';

/**
 * A session store that keeps logs in memory, for tests and short-lived embeddings. Session ids follow
 * the one rule every store applies (`checkSessionId`), so a log moved to another store keeps its id.
 *
 * Events are kept as their serialised lines, exactly as the file store writes them (the lines of one
 * append as one string: a string per line cost ~24 bytes more each), so both stores
 * behave alike: a loaded event never aliases an appended one, `undefined` fields disappear, and `load`
 * validates and refuses newer format versions the same way.
 *
 * @throws ConfigError when given options: it takes none (`memoryStore: unknown option "dir"`).
 */
export function memoryStore(options: Record<string, never> = {}): SessionStore {
  parseHostValue('memoryStore', z.strictObject({}, must('an object, and it takes no options')), options);
  const sessions = new Map<string, string[]>();
  const locked = new Set<string>();

  function linesOf(sessionId: string): string[] {
    checkSessionId(sessionId);
    const lines = sessions.get(sessionId);
    if (!lines) throw new ConfigError(`session "${sessionId}" does not exist in the memory store`);
    return lines;
  }

  return {
    kind: 'memory',
    async create(sessionId) {
      checkSessionId(sessionId);
      if (sessions.has(sessionId)) {
        throw new ConfigError(`session "${sessionId}" already exists in the memory store`);
      }
      sessions.set(sessionId, []);
    },
    async append(sessionId, events) {
      const chunks = linesOf(sessionId);
      let chunk = '';
      for (const event of events) chunk += formatLogLine(event);
      if (chunk !== '') chunks.push(flattened(chunk));
    },
    async load(sessionId): Promise<LoadedSession> {
      // JSON escapes line breaks inside strings: every '\n' ends a line.
      const lines = linesOf(sessionId).join('').split('\n');
      lines.pop();
      const events: LogEvent[] = lines.map((line, index) => parseLogLine(line, index + 1));
      validateSequence(events);
      return { events, warnings: [] };
    },
    async exists(sessionId) {
      checkSessionId(sessionId);
      return sessions.has(sessionId);
    },
    async remove(sessionId) {
      checkSessionId(sessionId);
      sessions.delete(sessionId);
    },
    async list() {
      return [...sessions.keys()].sort();
    },
    async lock(sessionId): Promise<SessionLock> {
      checkSessionId(sessionId);
      if (locked.has(sessionId)) {
        throw new ConfigError(
          `session "${sessionId}" is held by a live agent using this store; dispose that agent first`,
        );
      }
      locked.add(sessionId);
      let held = true;
      return {
        async release() {
          if (held) locked.delete(sessionId);
          held = false;
        },
      };
    },
  };
}

/**
 * `text` as one flat string. V8's `JSON.stringify` returns a rope (a tree of 32-byte nodes over its
 * pieces), which kept lines would carry for their whole life: ~440 bytes for a 236-character line instead
 * of ~260. Reading a character flattens it in place, and GC then drops the rope. Measured through the
 * idle-conversation bench (bench/idle-memory.ts).
 */
function flattened(text: string): string {
  text.charCodeAt(text.length >> 1);
  return text;
}

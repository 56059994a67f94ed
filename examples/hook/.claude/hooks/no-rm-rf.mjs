// A PreToolUse hook in Claude Code's format: the call comes as one line of JSON on stdin; exit code 2
// blocks it, and what the hook writes to stderr is the reason the model reads.
import { readFileSync } from 'node:fs';

const { tool_input } = JSON.parse(readFileSync(0, 'utf8'));
if (/\brm\s+-rf\b/.test(tool_input.command)) {
  process.stderr.write('rm -rf is not allowed here: remove files by name.');
  process.exit(2);
}

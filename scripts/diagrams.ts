import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagramsCommand, diagramsMessage } from '../src/cli/commands/diagrams.ts';

// Thin wrapper for `npm run diagrams` (write) and `npm run diagrams:check` (compare, exit 1 when stale).
const check = process.argv.includes('--check');
const outDir = relative(process.cwd(), fileURLToPath(new URL('../diagrams/', import.meta.url))) || '.';
const result = await diagramsCommand({ outDir, check });
const message = diagramsMessage(result, check);
if (check && result.stale.length > 0) {
  console.error(message);
  process.exitCode = 1;
} else {
  console.log(message);
}

#!/usr/bin/env node
// The agentchart command. The CLI is TypeScript; tsx loads it on the fly, so a fresh clone works after `npm ci`.
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../src/cli/main.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2));

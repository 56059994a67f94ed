import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { agentsViewScript, treeScript } from './page/agents-view.ts';
import { boardScript, boardViewScript } from './page/board-view.ts';
import { chartScript } from './page/chart.ts';
import { chartLayoutScript } from './page/chart-layout.ts';
import { chartViewScript } from './page/chart-view.ts';
import { coreScript } from './page/core.ts';
import { mainScript } from './page/main.ts';
import { panelsScript } from './page/panels.ts';
import { travelScript } from './page/travel.ts';
import { vendorScript } from './page/vendor.ts';
import { viewsScript } from './page/views.ts';

// dagre's browser build (an IIFE that defines `dagre`), read from the installed package: no build step,
// no CDN. Its package exports do not name the file, so it is found beside its package.json.
const dagreFile = join(
  dirname(createRequire(import.meta.url).resolve('@dagrejs/dagre/package.json')),
  'dist/dagre.min.js',
);

let dagre: string | undefined;

/** The page's scripts by file name, as served under `/assets/`. */
export function pageAsset(name: string): string | undefined {
  switch (name) {
    case 'core.js':
      return coreScript;
    case 'chart.js':
      return chartScript;
    case 'chart-layout.js':
      return chartLayoutScript;
    case 'chart-view.js':
      return chartViewScript;
    case 'panels.js':
      return panelsScript;
    case 'travel.js':
      return travelScript;
    case 'views.js':
      return viewsScript;
    case 'vendor.js':
      return vendorScript;
    case 'main.js':
      return mainScript;
    case 'agents.js':
      return agentsViewScript;
    case 'tree.js':
      return treeScript;
    case 'board.js':
      return boardScript;
    case 'board-view.js':
      return boardViewScript;
    case 'dagre.js':
      dagre ??= readFileSync(dagreFile, 'utf8');
      return dagre;
    default:
      return undefined;
  }
}

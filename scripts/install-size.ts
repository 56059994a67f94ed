// `npm run install-size`: what installing agentchart costs a user, measured the way a user installs it
// (`npm pack`, then `npm install <tarball>` into an empty project, from the npm registry), written into
// docs/what-it-costs.md between the install-size markers. The page's figures come from this script,
// never typed.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { npm, packWithFacts, run } from './packed-package.ts';

const root = resolve(import.meta.dirname, '..');
const page = join(root, 'docs/what-it-costs.md');
const start = '<!-- install-size:start (npm run install-size writes this table) -->';
const end = '<!-- install-size:end -->';

/** Installs `packages` beside the tarball into a new empty project; the size and package count of its tree. */
async function installed(work: string, name: string, packages: string[]) {
  const project = join(work, name);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  const install = await run(npm, ['install', '--no-audit', '--no-fund', ...packages], { cwd: project });
  if (install.code !== 0) throw new Error(`npm install failed in ${project}:\n${install.stderr}`);
  const du = await run('du', ['-sk', 'node_modules'], { cwd: project });
  const listed = await run(npm, ['ls', '--all', '--parseable'], { cwd: project });
  // The first line is the project itself.
  const count = listed.stdout.split('\n').filter(Boolean).length - 1;
  return { megabytes: Number.parseInt(du.stdout, 10) / 1024, packages: count };
}

const work = await mkdtemp(join(tmpdir(), 'agentchart-size-'));
try {
  const packed = await packWithFacts(work);
  const alone = await installed(work, 'alone', [packed.path]);
  const withOpenai = await installed(work, 'with-openai', [packed.path, 'openai']);
  const withAnthropic = await installed(work, 'with-anthropic', [packed.path, '@anthropic-ai/sdk']);
  const mb = (value: number) => `${value.toFixed(0)} MB`;
  const day = new Date().toISOString().slice(0, 10);
  const table = [
    start,
    `| installed into an empty project (${day}) | tarball | files | \`node_modules\` | packages |`,
    '|---|--:|--:|--:|--:|',
    `| \`agentchart\` (zod comes as its peer) | ${Math.round(packed.size / 1000)} kB | ${packed.entryCount} | ${mb(alone.megabytes)} | ${alone.packages} |`,
    `| \`agentchart openai\` | | | ${mb(withOpenai.megabytes)} | ${withOpenai.packages} |`,
    `| \`agentchart @anthropic-ai/sdk\` | | | ${mb(withAnthropic.megabytes)} | ${withAnthropic.packages} |`,
    end,
  ].join('\n');
  const text = await readFile(page, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${page} has no install-size markers (${start} … ${end})`);
  await writeFile(page, text.slice(0, from) + table + text.slice(to + end.length));
  process.stdout.write(`${table}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}

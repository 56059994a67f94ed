// Every link of the README and docs/ leads somewhere: a relative link names a file or folder of this
// repository, and a #anchor is a heading (or an explicit anchor) of the page it points into. Web
// addresses are not fetched: the check runs offline.
import { statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, type Page, projectPages, readPage, repoRoot, slugOf } from './markdown-pages.ts';

const pages = projectPages();
const byPath = new Map(pages.map((page) => [page.path, page]));

function pageAt(path: string): Page {
  const known = byPath.get(path);
  if (known) return known;
  const page = readPage(relative(repoRoot, path));
  byPath.set(path, page);
  return page;
}

/** What is wrong with one link, or undefined when it resolves. */
function problemWith(page: Page, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? page.path : join(dirname(page.path), decodeURIComponent(pathPart));
  if (!path.startsWith(`${repoRoot}/`) && path !== repoRoot) return 'leads out of the repository';
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return `no such file: ${relative(repoRoot, path)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!stat.isFile() || !path.endsWith('.md'))
    return `#${anchor} points into ${relative(repoRoot, path)}, not a page`;
  return anchorsOf(pageAt(path)).has(anchor)
    ? undefined
    : `no heading makes #${anchor} in ${relative(repoRoot, path)}`;
}

describe('links in the README and docs/', () => {
  it('reads the pages a newcomer starts from', () => {
    const files = pages.map((page) => page.file);
    expect(files).toContain('README.md');
    expect(files).toContain('docs/README.md');
    expect(files).toContain('docs/api/README.md');
  });

  it('makes anchors as GitHub does', () => {
    expect(slugOf('`createAgentSystem(options)`')).toBe('createagentsystemoptions');
    expect(slugOf('Tools and permissions')).toBe('tools-and-permissions');
    expect(slugOf('What `bash` stops, and why')).toBe('what-bash-stops-and-why');
    expect(slugOf('Claude Code: hooks → agentchart')).toBe('claude-code-hooks--agentchart');
  });

  it('resolves every relative link and #anchor', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const link of page.links) {
        checked += 1;
        const problem = problemWith(page, link.target);
        if (problem) broken.push(`${page.file}:${link.line} ${link.target}: ${problem}`);
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(broken).toEqual([]);
  });
});

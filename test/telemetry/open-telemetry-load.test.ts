// How the optional `@opentelemetry/api` peer is told apart when it does not load, from the errors Node
// really gives: a package that is not installed means tracing is off (no error); a package that is there
// but fails to load (a missing main file, a throwing module) is `broken`, which a host that set
// `telemetry.tracerProvider` hears as a ConfigError and one that relies on the global provider as a warning.

import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { notInstalled } from '../../src/telemetry/open-telemetry.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-otel-load');
const run = promisify(execFile);

/**
 * What importing `@opentelemetry/api` from a project laid out as `files` fails with, in a plain Node
 * process (real resolution, not the test runner's): the error's code and message.
 */
async function importFailure(files: Record<string, string>): Promise<{ code?: string; message: string }> {
  const project = await tempFolder('project');
  const probe =
    "import('@opentelemetry/api').then(() => console.log('{}'), " +
    '(e) => console.log(JSON.stringify({ code: e.code, message: e.message })));\n';
  for (const [path, text] of Object.entries({ ...files, 'probe.mjs': probe })) {
    await mkdir(join(project, path, '..'), { recursive: true });
    await writeFile(join(project, path), text);
  }
  const { stdout } = await run(process.execPath, [join(project, 'probe.mjs')], { cwd: project });
  return JSON.parse(stdout);
}

const api = 'node_modules/@opentelemetry/api';

describe('loading @opentelemetry/api', () => {
  it('a package that is not installed is `missing`', async () => {
    const error = await importFailure({});
    expect(error.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(notInstalled(error)).toBe(true);
  });

  it('an installed package that fails to load is `broken`, not missing', async () => {
    const withoutMain = await importFailure({
      [`${api}/package.json`]: JSON.stringify({ name: '@opentelemetry/api', main: 'build/index.js' }),
    });
    const throwing = await importFailure({
      [`${api}/package.json`]: JSON.stringify({ name: '@opentelemetry/api', main: 'index.js' }),
      [`${api}/index.js`]: "throw new Error('half-installed');\n",
    });
    expect(withoutMain.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(throwing.message).toBe('half-installed');
    expect([notInstalled(withoutMain), notInstalled(throwing)]).toEqual([false, false]);
    expect([notInstalled(undefined), notInstalled('Cannot find package')]).toEqual([false, false]);
  });
});

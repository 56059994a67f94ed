// A bash line that writes into a skill's folder (read-only to the agent) asks, whatever the mode or an
// allow rule says; a line that only reads or runs from it is decided as any other. Real folders on disk,
// so symbolic links and `cd` are resolved as bash would.
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decidePermission, type PermissionDecision } from '../../src/permissions/decide.ts';

let root: string;
let workspace: string;
let skill: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentchart-read-only-')));
  workspace = join(root, 'ws');
  skill = join(root, 'home', '.claude', 'skills', 'pdf');
  await mkdir(join(skill, 'scripts'), { recursive: true });
  await mkdir(workspace, { recursive: true });
  await symlink(skill, join(workspace, 'pdf-link'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function decide(
  command: string,
  mode: 'bypass' | 'default' = 'bypass',
  allow: string[] = [],
): PermissionDecision {
  return decidePermission({
    mode,
    allow,
    tool: { name: 'bash', access: 'exec' },
    input: { command },
    cwd: workspace,
    readOnlyFolders: [skill],
  });
}

describe('bash lines and a read-only folder', () => {
  it('asks for every line that writes there, as far as its text tells', () => {
    const lines = [
      `echo x > ${skill}/notes.md`,
      `python3 ${skill}/scripts/fill.py >> ${skill}/out.log`,
      `rm -rf ${skill}/scripts`,
      `mv ${skill}/SKILL.md old.md`,
      `cp notes.md ${skill}/`,
      `ln -s /etc/passwd ${skill}/passwd`,
      `sed -i s/a/b/ ${skill}/SKILL.md`,
      `dd if=/dev/zero of=${skill}/zero bs=1 count=1`,
      `echo x | tee ${skill}/tee.txt`,
      `cd ${skill} && touch new.txt`,
      `cd ${skill} && python3 scripts/fill.py > out.txt`,
      'echo x > pdf-link/through-link.txt',
      `(cd /tmp && rm ${skill}/SKILL.md)`,
      `echo $(rm ${skill}/SKILL.md)`,
      `rm -rf ${join(root, 'home')}`,
      `rm -rf ${root}/*`,
      `chmod -R a-w ${join(root, 'home', '.claude')}`,
    ];
    expect(lines.map((line) => [line, decide(line).decision])).toEqual(lines.map((line) => [line, 'ask']));
    expect(decide(`rm -rf ${skill}/scripts`).reason).toBe(
      `rm writes into ${skill}, a skill's read-only folder`,
    );
    expect(decide(`echo x > ${skill}/notes.md`).reason).toBe(
      `a redirection writes into ${skill}, a skill's read-only folder`,
    );
  });

  it('an allow rule does not cover a write there either', () => {
    expect(decide(`rm ${skill}/SKILL.md`, 'default', ['Bash(rm:*)'])).toEqual({
      decision: 'ask',
      by: 'rule',
      reason: `rm writes into ${skill}, a skill's read-only folder`,
    });
  });

  it('decides lines that read or run from it as any other', () => {
    const lines = [
      `python3 ${skill}/scripts/fill.py --help`,
      `cd ${skill} && python3 scripts/fill.py --help`,
      `cat ${skill}/SKILL.md > copy.md`,
      `cp ${skill}/SKILL.md copy.md`,
      `python3 ${skill}/scripts/fill.py 2>/dev/null`,
      'rm -rf build',
      'rm -rf build/*',
      `touch ${join(root, 'home', 'notes.txt')}`,
    ];
    expect(lines.map((line) => [line, decide(line).decision])).toEqual(lines.map((line) => [line, 'allow']));
    expect(decide(`python3 ${skill}/scripts/fill.py`, 'default', ['Bash(python3:*)']).decision).toBe('allow');
  });
});

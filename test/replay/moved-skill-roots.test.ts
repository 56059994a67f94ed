// Which skill folders a live replay in a restored workspace finds at the same place in the copy: those the
// recording found inside its workspace, never one that only begins with the workspace's name.
import { describe, expect, it } from 'vitest';
import { movedSkillRoots } from '../../src/replay/moved-skill-roots.ts';
import type { LogEvent } from '../../src/session/types.ts';

const recording = (config: Record<string, unknown>): LogEvent[] => [
  { v: 1, seq: 0, ts: 0, type: 'session.start', data: { agentId: 'a', config } } as unknown as LogEvent,
];
const skill = (name: string, folder: string) => ({ name, description: name, folder });

describe('movedSkillRoots', () => {
  it('moves the roots of the skills inside the recorded workspace, once each', () => {
    const events = recording({
      cwd: '/home/dev/proj',
      skills: [
        skill('a', '/home/dev/proj/.agentchart/skills/a'),
        skill('b', '/home/dev/proj/.agentchart/skills/b'),
        skill('c', '/home/dev/proj/.claude/skills/c'),
        skill('home', '/home/dev/.claude/skills/home'),
        skill('sibling', '/home/dev/proj-other/.agentchart/skills/sibling'),
      ],
    });
    expect(movedSkillRoots(events, '/srv/ci/proj')).toEqual([
      '/srv/ci/proj/.agentchart/skills',
      '/srv/ci/proj/.claude/skills',
    ]);
  });

  it('moves nothing where the replay runs in the recorded workspace, or the recording has no skills', () => {
    const skills = [skill('a', '/home/dev/proj/.agentchart/skills/a')];
    expect(movedSkillRoots(recording({ cwd: '/home/dev/proj', skills }), '/home/dev/proj')).toEqual([]);
    expect(movedSkillRoots(recording({ cwd: '/home/dev/proj' }), '/srv/ci/proj')).toEqual([]);
    expect(movedSkillRoots(recording({ skills }), '/srv/ci/proj')).toEqual([]);
    expect(movedSkillRoots([], '/srv/ci/proj')).toEqual([]);
  });
});

// A SKILL.md body as Claude Code renders it: placeholders for the skill's folder, the session and the
// arguments (skills [current], "Available string substitutions").
import { describe, expect, it } from 'vitest';
import { fromClaudeInput, toClaudeInput } from '../../src/tools/claude-code-names.ts';
import { argumentNamesOf, renderSkillBody, skillBody, splitArguments } from '../../src/tools/skill-body.ts';

const render = (body: string, args?: string, argumentNames: string[] = []) =>
  renderSkillBody(body, { folder: '/skills/pdf', args, argumentNames, sessionId: 's1', projectDir: '/ws' });

describe('skill bodies', () => {
  it('leaves the front matter out, and takes a file without one whole', () => {
    expect(skillBody('---\nname: x\n---\nBody\n')).toBe('Body\n');
    expect(skillBody('\uFEFF# Only a body\n')).toBe('# Only a body\n');
  });

  it('fills the folder, the session and the arguments', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholders, as a SKILL.md writes them
    expect(render('Run ${CLAUDE_SKILL_DIR}/fill.py for ${CLAUDE_SESSION_ID} in ${CLAUDE_PROJECT_DIR}.')).toBe(
      'Run /skills/pdf/fill.py for s1 in /ws.',
    );
    expect(render('Fix issue $ARGUMENTS now.', '42 high')).toBe('Fix issue 42 high now.');
    expect(render('Fix issue $ARGUMENTS now.')).toBe('Fix issue  now.');
    expect(render('Move $0 from $1 to $ARGUMENTS[2].', '"Search Bar" React Vue')).toBe(
      'Move Search Bar from React to Vue.',
    );
    expect(render('Fix $issue on $branch.', '42 hotfix', ['issue', 'branch'])).toBe('Fix 42 on hotfix.');
  });

  it('keeps a positional placeholder with no argument as written, and appends arguments it has no place for', () => {
    expect(render('tag "$1"', 'v1')).toBe('tag "$1"');
    expect(render('git tag "$1"')).toBe('git tag "$1"');
    expect(render('Do the thing.\n', 'quickly')).toBe('Do the thing.\n\nARGUMENTS: quickly');
    expect(render('Do the thing.\n', '  ')).toBe('Do the thing.\n');
  });

  it('reads argument names and splits arguments as a shell does', () => {
    expect(argumentNamesOf('[issue, branch]')).toEqual(['issue', 'branch']);
    expect(argumentNamesOf('old-name new-name')).toEqual(['old-name', 'new-name']);
    expect(argumentNamesOf('- issue\n- branch')).toEqual(['issue', 'branch']);
    expect(splitArguments(`a "b c" 'd e' f\\ g`)).toEqual(['a', 'b c', 'd e', 'f g']);
    expect(splitArguments('  ')).toEqual([]);
  });
});

describe("the skill tool's input as Claude Code's hooks read it", () => {
  it('is { skill, args }, and an updatedInput in those names comes back as the tool takes it', () => {
    expect(toClaudeInput('skill', { name: 'pdf', args: 'form.pdf' }, '/ws')).toEqual({
      skill: 'pdf',
      args: 'form.pdf',
    });
    expect(fromClaudeInput('skill', { skill: 'pdf', args: 'x' })).toEqual({ name: 'pdf', args: 'x' });
  });
});

// Permission rules on the skill tool, written as Claude Code writes them: `Skill(name)`, `Skill(name *)`.
import { describe, expect, it } from 'vitest';
import { decidePermission } from '../../src/permissions/decide.ts';

describe('rules on the skill tool', () => {
  const decideSkill = (rule: string, input: Record<string, string>) =>
    decidePermission({ mode: 'bypass', deny: [rule], tool: { name: 'skill', access: 'read' }, input })
      .decision;

  it('read Skill(name) and Skill(name *) as Claude Code does, and arguments never escape a deny', () => {
    expect(decideSkill('Skill(webapp-testing)', { name: 'webapp-testing' })).toBe('deny');
    expect(decideSkill('Skill(webapp-testing)', { name: 'webapp-testing', args: '--port 3000' })).toBe(
      'deny',
    );
    expect(decideSkill('Skill(webapp-testing *)', { name: 'webapp-testing' })).toBe('deny');
    expect(decideSkill('Skill(webapp-testing *)', { name: 'webapp-testing', args: 'x' })).toBe('deny');
    expect(decideSkill('Skill(web*)', { name: 'webapp-testing' })).toBe('deny');
    expect(decideSkill('Skill(webapp-testing)', { name: 'pdf' })).toBe('allow');
    expect(decideSkill('Skill(pdf fill *)', { name: 'pdf', args: 'fill form.pdf' })).toBe('deny');
    expect(decideSkill('Skill(pdf fill *)', { name: 'pdf', args: 'read form.pdf' })).toBe('allow');
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prefixRuleFor } from '../../src/permissions/command-rules.ts';
import { decidePermission } from '../../src/permissions/decide.ts';
import { matchesRule, parseRule, ruleProblem } from '../../src/permissions/rules.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

const bash = { name: 'bash', access: 'exec' as const };
const covers = (rule: string, command: string) => matchesRule(parseRule(rule), 'bash', { command });

describe('prefix rules (bash(npm test:*))', () => {
  it('cover the prefix alone or followed by a space, nothing else', () => {
    expect(covers('bash(npm test:*)', 'npm test')).toBe(true);
    expect(covers('bash(npm test:*)', 'npm test -- --watch')).toBe(true);
    expect(covers('bash(npm test:*)', 'npm testing')).toBe(false);
    expect(covers('bash(npm test:*)', 'npx npm test')).toBe(false);
    expect(ruleProblem('bash(:*)')).toBe('the command prefix before ":*" is empty');
  });

  it('allow a chain only when every part is covered, and never a substitution', () => {
    const decide = (command: string, sessionRules: string[]) =>
      decidePermission({ mode: 'default', tool: bash, input: { command }, sessionRules }).decision;
    expect(decide('npm test && npm test -- -u', ['bash(npm test:*)'])).toBe('allow');
    expect(decide('npm test && touch PWNED', ['bash(npm test:*)'])).toBe('ask');
    expect(decide('npm test $(touch PWNED)', ['bash(npm test:*)'])).toBe('ask');
    expect(
      decidePermission({
        mode: 'default',
        tool: bash,
        input: { command: 'npm test' },
        sessionRules: ['bash(npm test:*)'],
        deny: ['bash(npm:*)'],
      }).decision,
    ).toBe('deny');
  });

  it('are offered for the program and its subcommand', () => {
    expect(prefixRuleFor('bash', 'npm test -- --watch')).toBe('bash(npm test:*)');
    expect(prefixRuleFor('bash', 'ls -la src')).toBe('bash(ls:*)');
    expect(prefixRuleFor('bash', 'git status')).toBe('bash(git status:*)');
    expect(prefixRuleFor('bash', 'cat ./a.txt')).toBe('bash(cat:*)');
    expect(prefixRuleFor('bash', '$(evil)')).toBeUndefined();
  });
});

describe('an approver that answers with a rule or a reason', () => {
  const probe = defineTool({
    name: 'probe',
    description: 'runs a command (a test tool)',
    access: 'exec',
    input: z.object({ command: z.string() }),
    run: async ({ command }) => `ran ${command}`,
  });

  it('remembers the rule for the session, and the model reads a denial reason', async () => {
    const asked: string[] = [];
    const store = memoryStore();
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 'c1', name: 'probe', input: { command: 'npm test' } }] },
        { toolCalls: [{ id: 'c2', name: 'probe', input: { command: 'npm test -- -u' } }] },
        { toolCalls: [{ id: 'c3', name: 'probe', input: { command: 'rm -rf /' } }] },
        { toolCalls: [{ id: 'c4', name: 'probe', input: { command: 'npm test' } }] },
        { text: 'done' },
      ]),
      tools: [probe],
      store,
      approve: async (request) => {
        const command = (request.input as { command: string }).command;
        asked.push(command);
        if (command === 'npm test') return { outcome: 'allow_session', rule: 'probe(npm test:*)' };
        return { outcome: 'deny', reason: 'never delete the root' };
      },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('go');
    await system.dispose();
    // c2 and c4 are covered by the remembered rule, so only c1 and c3 were asked about.
    expect(asked).toEqual(['npm test', 'rm -rf /']);
    const results = agent
      .log()
      .filter((event) => event.type === 'tool.result')
      .map((event) => (event.data as { content: string }).content);
    expect(results).toEqual([
      'ran npm test',
      'ran npm test -- -u',
      'Permission denied: never delete the root',
      'ran npm test',
    ]);
  });

  it('denies, saying why, when the answer carries a malformed rule or one for another tool', async () => {
    for (const rule of ['probe(', 'bash(npm test:*)']) {
      const system = createAgentSystem({
        model: scripted([
          { toolCalls: [{ id: 'c1', name: 'probe', input: { command: 'ls' } }] },
          { text: 'ok' },
        ]),
        tools: [probe],
        store: memoryStore(),
        approve: async () => ({ outcome: 'allow_session', rule }),
      });
      const agent = await system.createAgent({ id: 'a' });
      await agent.run('go');
      await system.dispose();
      const decided = agent.log().find((event) => event.type === 'approval.decided');
      expect(decided?.data).toMatchObject({ outcome: 'deny', by: 'host' });
      expect((decided!.data as { reason: string }).reason).toMatch(/^the approver's rule .* is unusable: /);
    }
  });
});

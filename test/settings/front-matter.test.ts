// SKILL.md front matter, read by a small strict parser: the YAML subset skills use, and a message naming
// the line when a file is outside it.
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../src/settings/front-matter.ts';

describe('SKILL.md front matter', () => {
  it('reads plain, quoted and block values, and keeps keys it does not use', () => {
    const text = [
      '---',
      'name: pdf-forms',
      "description: 'Fills PDF forms: use it when a form''s fields must be set.'",
      'license: MIT # a comment',
      'metadata:',
      '  version: 1.2',
      'quoted: "a \\"b\\""',
      'folded: >',
      '  one',
      '  two',
      'literal: |',
      '  line 1',
      '  line 2',
      '---',
      'body',
    ].join('\n');
    expect(parseFrontMatter(text)).toEqual({
      fields: {
        name: 'pdf-forms',
        description: "Fills PDF forms: use it when a form's fields must be set.",
        license: 'MIT',
        metadata: 'version: 1.2',
        quoted: 'a "b"',
        folded: 'one two',
        literal: 'line 1\nline 2',
      },
    });
  });

  it('reads quoted values folded over lines and block scalars with indicators, as YAML does', () => {
    const text = [
      '---',
      'description: "Processes PDF files:',
      '  forms, tables and scans."',
      "when_to_use: 'When a PDF''s",
      "  fields are named.'",
      'notes: >+',
      '  kept',
      '---',
    ].join('\n');
    expect(parseFrontMatter(text)).toEqual({
      fields: {
        description: 'Processes PDF files: forms, tables and scans.',
        when_to_use: "When a PDF's fields are named.",
        notes: 'kept',
      },
    });
  });

  it('says what is wrong', () => {
    expect(parseFrontMatter('name: x')).toEqual({
      problem: 'it does not begin with a front matter ("---" line)',
    });
    expect(parseFrontMatter('---\nname: x\n')).toEqual({
      problem: 'its front matter has no closing "---" line',
    });
    expect(parseFrontMatter('---\n- a list\n---\n')).toEqual({
      problem: 'front matter line 2 is not "key: value": - a list',
    });
    expect(parseFrontMatter('---\nname: a\nname: b\n---\n')).toEqual({
      problem: 'front matter key "name" appears twice',
    });
    expect(parseFrontMatter('---\ndescription: "open\n---\n')).toEqual({
      problem: 'front matter key "description": a double-quoted value is not closed',
    });
  });
});

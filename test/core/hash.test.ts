import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../src/core/hash.ts';

describe('fnv1a', () => {
  it('gives the published FNV-1a 32-bit values, as unsigned numbers', () => {
    expect(['', 'a', 'foobar'].map(fnv1a)).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
  });
});

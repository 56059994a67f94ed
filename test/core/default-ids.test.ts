import { describe, expect, it } from 'vitest';
import { defaultIds } from '../../src/core/clock.ts';

describe('defaultIds', () => {
  it('gives ids of letters and digits only, so none reads as a command-line option', () => {
    const ids = Array.from({ length: 20_000 }, () => defaultIds());
    const bad = ids.filter((id) => !/^[A-Za-z0-9]{22}$/.test(id));
    expect({ bad, distinct: new Set(ids).size }).toEqual({ bad: [], distinct: 20_000 });
  });
});

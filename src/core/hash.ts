// The one string hash of the runtime: replay needs values that are the same on every run and every
// machine, so it is a fixed, tiny algorithm rather than anything seeded. Ground floor: no imports.

/**
 * FNV-1a over the UTF-16 code units of `text`: an unsigned 32-bit number, stable across runs. Not for
 * security; for telling values apart (the system prompt's `systemHash`) and for deterministic jitter.
 *
 * @example
 * fnv1a('') === 0x811c9dc5
 * fnv1a('a').toString(16) === 'e40c292c'
 */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

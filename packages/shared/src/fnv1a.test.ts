import { describe, expect, it } from 'vitest';
import { FNV1A_OFFSET, fnv1a } from './fnv1a.js';

describe('fnv1a', () => {
  it('gives the reference FNV-1a 32-bit values', () => {
    // the FNV reference's test vectors (fnv1a32 of ASCII strings)
    const vectors: [string, number][] = [
      ['', 0x811c9dc5],
      ['a', 0xe40c292c],
      ['b', 0xe70c2de5],
      ['foo', 0xa9f37ed7],
      ['foobar', 0xbf9cf968],
      ['chongo was here!\n', 0xd49930d5],
    ];
    for (const [text, hash] of vectors) expect(fnv1a(text) >>> 0, JSON.stringify(text)).toBe(hash);
  });

  it('goes on from a seed as if the texts were one', () => {
    expect(fnv1a('bar', fnv1a('foo'))).toBe(fnv1a('foobar'));
    expect(fnv1a('', FNV1A_OFFSET)).toBe(FNV1A_OFFSET);
  });
});

/** FNV-1a's 32-bit offset basis (the hash of nothing) and prime. */
export const FNV1A_OFFSET = 0x811c9dc5;
export const FNV1A_PRIME = 0x01000193;

/**
 * FNV-1a, 32 bits, over a string's UTF-16 code units (for ASCII, the bytes the reference hashes),
 * going on from `seed` (the offset basis starts a hash; another seed salts it or continues one).
 * Signed as Math.imul leaves it: `>>> 0` reads it unsigned. Cheap and well spread for keys and
 * deterministic draws; not a defence against chosen inputs.
 */
export function fnv1a(text: string, seed = FNV1A_OFFSET): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV1A_PRIME);
  return h;
}

import { fnv1a } from '@adplane/shared';

/**
 * The post-bid draws of a decision: deterministic from the decision id, so the same decision always
 * gets the same answer (a test, or an operator reading a trace, can predict it) while ids spread
 * evenly. FNV-1a over the id and a salt ('' for the account's share, the pixel id for each pixel),
 * then a murmur3 finaliser so that ids differing in their last character land far apart.
 */
export function postbidDraw(decisionId: string, salt: string): number {
  let h = fnv1a(salt ? `${decisionId}|${salt}` : decisionId);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  // 0 <= draw < 100, in steps of 0.01
  return ((h >>> 0) % 10_000) / 100;
}

/** Whether a draw falls in a share given in percent (0 never, 100 always). */
export const inShare = (draw: number, percent: number): boolean => draw < percent;

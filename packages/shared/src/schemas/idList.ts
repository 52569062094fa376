import { z } from 'zod';

const ID = /^[1-9]\d{0,15}$/;

/**
 * A query parameter of comma-separated row ids (`ids=1,2,3`): the ids in order, each once, or the
 * issue added to the zod context (`<what> ids separated by commas`, at most `max`).
 */
export function idList(text: string, ctx: z.RefinementCtx, max: number, what: string): number[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0 || parts.some((p) => !ID.test(p) || !Number.isSafeInteger(Number(p)))) {
    ctx.addIssue({ code: 'custom', message: `must be ${what} ids separated by commas` });
    return z.NEVER;
  }
  if (parts.length > max) {
    ctx.addIssue({ code: 'custom', message: `at most ${max} ids` });
    return z.NEVER;
  }
  return [...new Set(parts.map(Number))];
}

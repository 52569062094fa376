import { type Rule } from 'antd/es/form';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Why a typed number is outside [min, max] (`must be between 0 and 100`, with the unit when given),
 * or null when it is inside or empty. A bound left out is open.
 */
export function rangeProblem(value: unknown, min?: number, max?: number, unit = ''): string | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  const low = min !== undefined && (Number.isNaN(n) || n < min);
  const high = max !== undefined && (Number.isNaN(n) || n > max);
  if (!low && !high) return null;
  const tail = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return `must be between ${count(min)} and ${count(max)}${tail}`;
  return min !== undefined ? `must be at least ${count(min)}${tail}` : `must be at most ${count(max!)}${tail}`;
}

/**
 * A form rule refusing a number outside [min, max] in place, with the range. The box itself takes no
 * min or max: antd's InputNumber would otherwise clamp the typed value silently on blur, and the
 * person would never learn that what they typed was not what was kept.
 */
export function rangeRule(min?: number, max?: number, unit = ''): Rule {
  return {
    validator: async (_rule, value: unknown) => {
      const problem = rangeProblem(value, min, max, unit);
      if (problem) throw new Error(problem);
    },
  };
}

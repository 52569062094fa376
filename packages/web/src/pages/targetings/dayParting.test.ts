import { describe, expect, it } from 'vitest';
import { DayParting } from '@adplane/shared';
import {
  ALL_HOURS,
  applyShortcut,
  dayPartingProblem,
  describeDayParting,
  describeDays,
  describeHours,
  paintRange,
  runs,
  scheduleGrid,
  type DayPartingValue,
} from './dayParting.js';

const base: DayPartingValue = { enabled: true, timezone: -5, days: [0, 1, 2, 3, 4, 5, 6], hours: [...ALL_HOURS] };

describe('day-parting grid', () => {
  it('shows the product of the ticked days and hours as a 7x24 grid', () => {
    const grid = scheduleGrid({ days: [0, 6], hours: [19, 20] });
    expect(grid).toHaveLength(7);
    expect(grid.every((row) => row.length === 24)).toBe(true);
    expect(grid[0][19]).toBe(true);
    expect(grid[6][20]).toBe(true);
    expect(grid[1][19]).toBe(false);
    expect(grid[0][18]).toBe(false);
    expect(grid.flat().filter(Boolean)).toHaveLength(4);
  });

  it('paints a dragged run on or off, in either direction, sorted and without repeats', () => {
    expect(paintRange([], 9, 12, true)).toEqual([9, 10, 11, 12]);
    expect(paintRange([1, 2], 12, 9, true)).toEqual([1, 2, 9, 10, 11, 12]);
    expect(paintRange([9, 10, 11, 12, 13], 10, 11, false)).toEqual([9, 12, 13]);
    expect(paintRange([3], 3, 3, true)).toEqual([3]);
  });

  it('applies the shortcuts', () => {
    expect(applyShortcut(base, 'weekdays')).toMatchObject({ days: [0, 1, 2, 3, 4], hours: ALL_HOURS });
    expect(applyShortcut({ ...base, hours: [19] }, 'weekends')).toMatchObject({ days: [5, 6], hours: [19] });
    expect(applyShortcut({ ...base, days: [], hours: [] }, 'weekdays').hours).toEqual(ALL_HOURS);
    expect(applyShortcut({ ...base, days: [1], hours: [2] }, 'all')).toMatchObject({
      days: [0, 1, 2, 3, 4, 5, 6],
      hours: ALL_HOURS,
    });
    expect(applyShortcut(base, 'clear')).toMatchObject({ days: [], hours: [] });
    expect(applyShortcut({ ...base, days: [5, 6] }, 'prime')).toMatchObject({ days: [5, 6], hours: [19, 20, 21, 22] });
    expect(applyShortcut({ ...base, days: [] }, 'business')).toMatchObject({
      days: [0, 1, 2, 3, 4, 5, 6],
      hours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
    });
    // The other fields are kept.
    expect(applyShortcut(base, 'clear')).toMatchObject({ enabled: true, timezone: -5 });
  });

  it('keeps what the shared schema accepts', () => {
    for (const shortcut of ['weekdays', 'weekends', 'all', 'business', 'prime'] as const) {
      expect(DayParting.safeParse(applyShortcut(base, shortcut)).success, shortcut).toBe(true);
    }
    expect(DayParting.safeParse(applyShortcut(base, 'clear')).success).toBe(false);
    expect(dayPartingProblem(applyShortcut(base, 'clear'))).toBe(
      'Tick at least one day and one hour, or turn day-parting off',
    );
    expect(dayPartingProblem({ ...base, hours: [] })).toBe('Tick at least one hour, or turn day-parting off');
    expect(dayPartingProblem({ ...base, days: [] })).toBe('Tick at least one day, or turn day-parting off');
    expect(dayPartingProblem({ ...base, enabled: false, days: [] })).toBeNull();
    expect(dayPartingProblem(base)).toBeNull();
  });

  it('describes the schedule in ad-ops words', () => {
    expect(runs([4, 0, 1, 2, 6])).toEqual([
      [0, 2],
      [4, 4],
      [6, 6],
    ]);
    expect(describeDays([0, 1, 2, 3, 4])).toBe('Mon-Fri');
    expect(describeDays([5, 6])).toBe('Sat, Sun');
    expect(describeDays([0, 2, 3, 4, 6])).toBe('Mon, Wed-Fri, Sun');
    expect(describeDays([0, 1, 2, 3, 4, 5, 6])).toBe('Every day');
    expect(describeHours([19, 20, 21, 22])).toBe('19:00-23:00');
    expect(describeHours([0, 1, 23])).toBe('00:00-02:00, 23:00-24:00');
    expect(describeHours(ALL_HOURS)).toBe('all day');
    expect(describeDayParting({ ...base, days: [0, 1, 2, 3, 4], hours: [19, 20, 21, 22] })).toBe(
      'Mon-Fri 19:00-23:00 (UTC-5)',
    );
    expect(describeDayParting({ ...base, enabled: false })).toBe('Off: serves around the clock');
  });
});

import { describe, expect, it } from 'vitest';
import {
  actionsWidth,
  COLUMN_WIDTHS,
  FLEX_MIN_WIDTH,
  LIST_FIT_WIDTH,
  minTableWidth,
  NAME_MIN_WIDTH,
} from './columnWidths.js';

describe('list column widths', () => {
  it('gives the actions column 24 px an icon and the cell padding', () => {
    expect(actionsWidth(2)).toBe(64);
    expect(actionsWidth(5)).toBe(136);
  });

  it('counts the name and other width-less columns at their minimum, and the row checkboxes', () => {
    const columns = [
      { key: 'id', width: COLUMN_WIDTHS.id },
      { key: 'name' },
      { key: 'rules' },
      { key: 'status', width: COLUMN_WIDTHS.status },
    ];
    expect(minTableWidth(columns, false)).toBe(
      COLUMN_WIDTHS.id + NAME_MIN_WIDTH + FLEX_MIN_WIDTH + COLUMN_WIDTHS.status,
    );
    expect(minTableWidth(columns, true)).toBe(minTableWidth(columns, false) + COLUMN_WIDTHS.select);
    // A name given a width (beside a wide column of the kind's own) keeps it.
    expect(minTableWidth([{ key: 'name', width: 250 }], false)).toBe(250);
  });

  it('budgets a 1280 px window beside a classic scrollbar', () => {
    expect(LIST_FIT_WIDTH).toBe(1280 - 4 * 24 - 17);
  });
});

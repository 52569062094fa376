import '../../test/setup.js';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { NO_DEMAND_ID, NO_DEMAND_NAME, type ReportRow } from '@adplane/shared';
import { EMPTY_MARK } from '../../format/empty.js';
import { rowLabel } from './ReportChart.js';
import { ReportTable } from './ReportTable.js';

const ROWS = [
  { marketplace_name: 'Crestline Exchange', channel: 4, channel_name: 'Demo player', imps: 120 },
  { marketplace_name: '', channel: 0, channel_name: '', imps: 30 },
  { total: true, imps: 150 },
] as unknown as ReportRow[];

describe('report rows without a value of a dimension', () => {
  it('read as the one empty mark in the chart labels', () => {
    expect(rowLabel(ROWS[1]!, 'marketplace_name')).toBe(EMPTY_MARK);
    expect(rowLabel(ROWS[1]!, 'channel')).toBe(EMPTY_MARK);
    expect(rowLabel(ROWS[0]!, 'marketplace_name')).toBe('Crestline Exchange');
    expect(rowLabel(ROWS[0]!, 'channel')).toBe('Demo player');
  });

  it('show the grey em dash in the table, never "(none)"', () => {
    render(<ReportTable rows={ROWS} dimensions={['marketplace_name', 'channel']} metrics={['imps']} />);
    const table = screen.getByTestId('report-table');
    expect(table.textContent).not.toContain('(none)');
    const marks = table.querySelectorAll('.empty-value');
    expect(marks).toHaveLength(2);
    for (const mark of marks) expect(mark.textContent).toBe(EMPTY_MARK);
    expect(table.textContent).toContain('Demo player #4');
  });
});

describe('the requests offered to no demand in a report of demand', () => {
  it('read as "No demand called", without an id', () => {
    const rows = [
      { tag: 7, tag_name: 'Fifty', reqs: 4 },
      { tag: NO_DEMAND_ID, tag_name: NO_DEMAND_NAME, reqs: 2 },
      { total: true, reqs: 6 },
    ] as unknown as ReportRow[];
    render(<ReportTable rows={rows} dimensions={['tag']} metrics={['reqs']} />);
    const table = screen.getByTestId('report-table');
    expect(table.textContent).toContain('Fifty #7');
    expect(table.textContent).toContain(NO_DEMAND_NAME);
    expect(table.textContent).not.toContain('#-1');
  });
});

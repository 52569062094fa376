import { Typography } from 'antd';
import { flightLabel } from './flightDates.js';

/**
 * A flight in a narrow list column: start over end (`2026-03-01` / `– 2026-04-30` or `– no end`);
 * without a start date the one-line label (`until 2026-04-30`, `Always on`).
 */
export function FlightCell({ start, end }: { start: unknown; end: unknown }) {
  if (typeof start !== 'string' || !start) return <span>{flightLabel(start, end)}</span>;
  return (
    <div style={{ whiteSpace: 'nowrap' }}>
      <div>{start}</div>
      <Typography.Text type="secondary">– {typeof end === 'string' && end ? end : 'no end'}</Typography.Text>
    </div>
  );
}

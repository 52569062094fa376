import { flightLabel } from './flightDates.js';

/** A flight on one line of a list (`2026-03-01 – 2026-04-30`, `2026-03-01 – no end`, `Always on`): rows stay one line high. */
export function FlightCell({ start, end }: { start: unknown; end: unknown }) {
  return <span style={{ whiteSpace: 'nowrap' }}>{flightLabel(start, end)}</span>;
}

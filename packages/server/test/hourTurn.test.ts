import { describe, expect, it } from 'vitest';
import { clearOfHourTurn, msToHourTurn } from './hourTurn.js';

describe('tests kept clear of an hour turn', () => {
  const at = (iso: string) => Date.parse(iso);

  it('counts the milliseconds to the next UTC hour', () => {
    expect(msToHourTurn(at('2026-11-27T23:59:30.000Z'))).toBe(30_000);
    expect(msToHourTurn(at('2026-11-27T23:00:00.000Z'))).toBe(3_600_000);
    expect(msToHourTurn(at('2026-11-28T04:59:59.500Z'))).toBe(500);
  });

  it('does not wait when the turn is further than the margin', async () => {
    expect(await clearOfHourTurn(15_000, at('2026-11-27T23:59:40.000Z'))).toBe(0);
  });

  it('waits past the turn, and a second more, when it is nearer', async () => {
    const started = Date.now();
    // 300 ms before a turn, as the clock is given: the wait is those 300 ms and the second after.
    expect(await clearOfHourTurn(15_000, at('2026-11-27T23:59:59.700Z'))).toBe(1_300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_250);
  });
});

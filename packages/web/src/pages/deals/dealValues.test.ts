import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { DealInput } from '@adplane/shared';
import { dealDefaults, dealToBody, dealToForm } from './dealValues.js';

describe('deal form conversions', () => {
  it('round-trips dates and leaves empty ones null', () => {
    const row = {
      name: 'Blue Fin Foods - CTV PMP',
      dealId: 'NW-BF-CTV-2026-001',
      floorCpm: 18_000_000,
      auctionType: 1,
      buyerSeats: ['ttd-1'],
      supplierIds: [3],
      startDate: '2026-03-01',
      endDate: null,
    };
    const form = dealToForm(row);
    expect((form.startDate as dayjs.Dayjs).format('YYYY-MM-DD')).toBe('2026-03-01');
    expect(form.endDate).toBeNull();
    expect(dealToBody(form)).toEqual(row);
    expect(DealInput.safeParse(dealToBody(form)).success).toBe(true);
  });

  it('sends picked dates as YYYY-MM-DD', () => {
    const body = dealToBody({
      ...dealDefaults(),
      name: 'x',
      dealId: 'D-1',
      startDate: dayjs('2026-07-01'),
      endDate: dayjs('2026-07-31'),
    });
    expect(body).toMatchObject({ startDate: '2026-07-01', endDate: '2026-07-31' });
    expect(DealInput.safeParse(body).success).toBe(true);
  });
});

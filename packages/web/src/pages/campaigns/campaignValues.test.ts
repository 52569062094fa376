import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { CampaignInput } from '@adplane/shared';
import { DEFAULT_CAP, campaignDefaults, campaignToBody, campaignToForm } from './campaignValues.js';

const row = {
  id: 4,
  name: 'Blue Fin Foods - Wild Salmon CTV flight',
  status: 1,
  advertiserId: 12,
  startDate: '2026-03-01',
  endDate: '2026-04-30',
  totalBudget: 120_000_000_000,
  dailyBudget: 1_500_000_000,
  pacing: 'even',
  bidCpm: 18_000_000,
  frequencyCap: { count: 3, periodHours: 24 },
  targetingId: null,
  creativeIds: [7],
  dealIds: [2],
  supplierIds: [1],
  adExchangeIds: [],
  channelScope: 'all',
  channelIds: [],
};

describe('campaign form conversions', () => {
  it('opens flight dates as date-picker values and a set cap as a switched-on cap', () => {
    const form = campaignToForm(row);
    expect(dayjs.isDayjs(form.startDate)).toBe(true);
    expect((form.startDate as dayjs.Dayjs).format('YYYY-MM-DD')).toBe('2026-03-01');
    expect((form.endDate as dayjs.Dayjs).format('YYYY-MM-DD')).toBe('2026-04-30');
    expect(form.frequencyCap).toEqual({ enabled: true, count: 3, periodHours: 24 });
    expect(form.bidCpm).toBe(18_000_000);
  });

  it('opens a campaign without end date or cap with an empty end and the cap off (at its defaults)', () => {
    const form = campaignToForm({ ...row, endDate: null, frequencyCap: null });
    expect(form.endDate).toBeNull();
    expect(form.frequencyCap).toEqual({ enabled: false, ...DEFAULT_CAP });
  });

  it('sends dates as YYYY-MM-DD and the cap as {count, periodHours}', () => {
    const body = campaignToBody({
      ...campaignToForm(row),
      frequencyCap: { enabled: true, count: 5, periodHours: 168 },
    });
    expect(body.startDate).toBe('2026-03-01');
    expect(body.endDate).toBe('2026-04-30');
    expect(body.frequencyCap).toEqual({ count: 5, periodHours: 168 });
    expect(CampaignInput.safeParse(body).success).toBe(true);
  });

  it('sends an empty end date as null and a switched-off cap as null', () => {
    const body = campaignToBody({
      name: 'x',
      startDate: dayjs('2026-05-10'),
      endDate: null,
      frequencyCap: { enabled: false, count: 3, periodHours: 24 },
      bidCpm: 1_000_000,
      channelScope: 'all',
    });
    expect(body.endDate).toBeNull();
    expect(body.frequencyCap).toBeNull();
    expect(CampaignInput.safeParse(body).success).toBe(true);
  });

  it('round-trips a row through the form unchanged', () => {
    const body = campaignToBody(campaignToForm(row));
    expect(body).toEqual(row);
  });

  it('leaves an end date before the start for the server to refuse on endDate', () => {
    const body = campaignToBody({ ...campaignToForm(row), endDate: dayjs('2026-02-01') });
    const parsed = CampaignInput.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toContain('endDate');
  });

  it('starts a new campaign today, with no end, even pacing and no cap', () => {
    const d = campaignDefaults(dayjs('2026-06-15T13:45:00'));
    expect((d.startDate as dayjs.Dayjs).format('YYYY-MM-DD HH:mm')).toBe('2026-06-15 00:00');
    expect(d.endDate).toBeNull();
    expect(d.pacing).toBe('even');
    expect(campaignToBody(d).frequencyCap).toBeNull();
  });

  it("sends where a new campaign runs as the form shows it: 'All my channels' until another is picked", () => {
    const body = campaignToBody({ ...campaignDefaults(dayjs('2026-06-15')), name: 'New', bidCpm: 2_000_000 });
    expect(body).toMatchObject({ channelScope: 'all', channelIds: [] });
    expect(CampaignInput.safeParse(body).success).toBe(true);
    // a body without the choice is refused on the Channels field, as the server refuses it
    const { channelScope: _scope, ...unchosen } = body;
    expect(CampaignInput.safeParse(unchosen).error?.issues.map((i) => i.path.join('.'))).toEqual(['channelScope']);
  });
});

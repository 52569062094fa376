import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { type CampaignPacing } from '@adplane/shared';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { resetLivePacing } from './livePacing.js';
import { PacingPanel } from './PacingPanel.js';
import { EMPTY_MARK } from '../../format/empty.js';
import {
  cumulativeSpend,
  pacingCellText,
  pacingChartOption,
  pacingMoney,
  pacingTooltipLines,
  spentOfTarget,
} from './pacingView.js';

vi.setConfig({ testTimeout: 20_000 });
// jsdom has no canvas: the chart is stood in for by its option (checked above through pacingChartOption)
vi.mock('../../components/EChart.js', () => ({
  EChart: ({ testId }: { testId?: string }) => <div data-testid={testId} />,
}));
const fetchMock = vi.fn<typeof fetch>();

/** Even pacing, $24 a day, at 10:30 of the account's day (UTC-5), $1 an hour so far but none this hour. */
const pacing = (over: Partial<CampaignPacing> = {}): CampaignPacing => ({
  campaignId: 5,
  pacing: 'even',
  day: '2026-11-23',
  timezone: -5,
  hour: 10,
  dailyBudget: 24_000_000,
  spentToday: 10_000_000,
  targetSoFar: 10_500_000,
  projected: 20_000_000,
  allowedPerHour: 1_200_000,
  totalBudget: 'unlimited',
  totalSpent: null,
  state: 'on_pace',
  reason: 'Within 5% of the budget of even pace',
  hourly: Array.from({ length: 24 }, (_, h) => (h < 10 ? 1_000_000 : 0)),
  evenByHour: Array.from({ length: 24 }, (_, h) => (h + 1) * 1_000_000),
  ...over,
});

describe('pacing view', () => {
  it('reads spent over target, the tooltip and the spend so far up to the current hour', () => {
    const p = pacing();
    expect(pacingCellText(p)).toBe('$10.00 / $10.50');
    expect(spentOfTarget(p)).toBeCloseTo(0.952, 3);
    expect(pacingTooltipLines(p)).toEqual([
      'On pace: Within 5% of the budget of even pace',
      'Spent today $10.00 (95.24% of the target)',
      'Target so far $10.50 (even pacing)',
      'Projected $20.00 of $24.00 a day',
      "2026-11-23 10:00 UTC-5, the account's day",
    ]);
    const so = cumulativeSpend(p);
    expect(so[9]).toBe(10_000_000);
    expect(so[10]).toBe(10_000_000);
    expect(so[11]).toBeNull();
    expect(pacingCellText(pacing({ dailyBudget: 'unlimited', targetSoFar: null, evenByHour: null }))).toBe('$10.00');
  });

  it('reads an amount as USD, a budget without a limit as Unlimited, an unknown amount as the empty mark (the panel and the tooltip alike)', () => {
    expect(pacingMoney(1_234_567)).toBe('$1.23');
    expect(pacingMoney('unlimited')).toBe('Unlimited');
    expect(pacingMoney(null)).toBe(EMPTY_MARK);
  });

  it('charts the hourly spend in dollars with the even-pace line, and leaves the line out without a daily budget', () => {
    const option = pacingChartOption(pacing()) as { series: { name: string; data: (number | null)[] }[] };
    expect(option.series.map((s) => s.name)).toEqual(['Spend in the hour', 'Spent so far', 'Even pace']);
    expect(option.series[0]!.data[0]).toBe(1);
    expect(option.series[2]!.data[23]).toBe(24);
    const unlimited = pacingChartOption(pacing({ dailyBudget: 'unlimited', targetSoFar: null, evenByHour: null })) as {
      series: unknown[];
    };
    expect(unlimited.series).toHaveLength(2);
  });
});

describe('PacingPanel', () => {
  beforeEach(() => {
    resetLivePacing();
    vi.stubGlobal('fetch', fetchMock);
    fetchMock.mockImplementation(async (input) => {
      const url = String(input);
      if (url === '/api/demand/campaigns/pacing?ids=5')
        return jsonResponse({
          at: 0,
          campaigns: [
            pacing({ state: 'behind', reason: 'More than 5% of the budget behind even pace', spentToday: 6_000_000 }),
          ],
        });
      return jsonResponse({ message: 'unexpected' }, 500);
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
  });

  it('asks the live pacing of its campaign and shows spent, target, projection and state', async () => {
    renderWithAuth(
      <MemoryRouter>
        <PacingPanel campaignId={5} />
      </MemoryRouter>,
      makeUser('demand', { showDsp: true }),
    );
    await waitFor(() => expect(screen.getByTestId('pacing-state').textContent).toBe('Behind'));
    expect(screen.getByTestId('pacing-panel').getAttribute('data-state')).toBe('behind');
    expect(screen.getByTestId('pacing-spent').textContent).toContain('$6.00');
    expect(screen.getByTestId('pacing-target').textContent).toContain('$10.50');
    expect(screen.getByTestId('pacing-projected').textContent).toContain('$20.00');
    expect(screen.getByTestId('pacing-total').textContent).toBe(`Total spent${EMPTY_MARK}of Unlimited`);
    expect(screen.getByTestId('pacing-reason').textContent).toContain('behind even pace');
    expect(screen.getByTestId('pacing-chart')).toBeTruthy();
    expect(fetchMock.mock.calls.map(([u]) => String(u))).toEqual(['/api/demand/campaigns/pacing?ids=5']);
  });

  it('shows a skeleton while the pacing loads, and the error in its place when the call fails', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'The delivery counters are not reachable' }, 503));
    renderWithAuth(
      <MemoryRouter>
        <PacingPanel campaignId={6} />
      </MemoryRouter>,
      makeUser('demand', { showDsp: true }),
    );
    expect(screen.getByTestId('pacing-loading')).toBeTruthy();
    const error = await screen.findByTestId('pacing-error');
    expect(error.textContent).toContain('The live pacing could not be loaded');
    expect(error.textContent).toContain('The delivery counters are not reachable');
    expect(screen.queryByTestId('pacing-loading')).toBeNull();
  });
});

import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { type DashboardAnswer } from '@adplane/shared';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';

// Charts need a canvas jsdom does not have; the lists are what is tested here.
vi.mock('../../components/EChart.js', () => ({ EChart: () => null }));
const { DashboardStats } = await import('./DashboardStats.js');

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();

const zero = { revenue: 0, cost: 0, profit: 0, imps: 0, fill: 0, reqs: 0, ecpm: 0 };
const BASE = {
  today: '2026-11-07',
  yesterday: '2026-11-06',
  weekStart: '2026-11-01',
  timezone: 0,
  totals: { today: zero, yesterday: zero, yesterdaySoFar: zero, last7: zero },
  hours: [],
  hourNow: '2026-11-07 10:00',
  days: [],
};
// What the server answers in each view: that view's lists filled, the others empty.
const SSP_ANSWER: DashboardAnswer = {
  ...BASE,
  topChannels: [{ channel: 1, channel_name: 'Demo player', revenue: 5_000_000, imps: 100, fill: 50 }],
  topDemand: [{ tag: 2, tag_name: 'Demo VAST tag', revenue: 4_000_000, imps: 90, fill: 40 }],
  topCampaigns: [],
  topSuppliers: [],
};
const DSP_ANSWER: DashboardAnswer = {
  ...BASE,
  topChannels: [],
  topDemand: [],
  topCampaigns: [{ campaign: 7, campaign_name: 'Blue Fin Foods - Q4', revenue: 3_000_000, imps: 80, ecpm: 37_500_000 }],
  topSuppliers: [{ supplier: 4, supplier_name: 'Harbor Exchange', revenue: 2_000_000, imps: 60, fill: 30 }],
};
const calls: string[] = [];

beforeEach(() => {
  calls.length = 0;
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    calls.push(url);
    if (url === '/api/dashboard?view=ssp') return jsonResponse(SSP_ANSWER);
    if (url === '/api/dashboard?view=dsp') return jsonResponse(DSP_ANSWER);
    return jsonResponse({ message: `unexpected ${url}` }, 404);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const renderIn = (mode: 'ssp' | 'dsp') =>
  renderWithAuth(
    <MemoryRouter>
      <DashboardStats />
    </MemoryRouter>,
    makeUser('demand', { showDsp: true }),
    { mode },
  );

describe('the dashboard top lists by view', () => {
  it('DSP: top campaigns and top suppliers of the week from the one dashboard call, no channels or demand tags', async () => {
    renderIn('dsp');
    const campaigns = await screen.findByTestId('dashboard-top-campaigns');
    expect(within(campaigns).getByText('Top campaigns, last 7 days')).toBeTruthy();
    expect(within(campaigns).getByText('Blue Fin Foods - Q4')).toBeTruthy();
    expect(within(campaigns).getByText('eCPM')).toBeTruthy();
    expect(within(campaigns).getByText('$37.50')).toBeTruthy();
    const suppliers = screen.getByTestId('dashboard-top-suppliers');
    expect(within(suppliers).getByText('Top suppliers, last 7 days')).toBeTruthy();
    expect(within(suppliers).getByText('Harbor Exchange')).toBeTruthy();
    expect(within(suppliers).getByText('Fill')).toBeTruthy();
    expect(within(suppliers).getAllByRole('row')).toHaveLength(2);
    expect(screen.queryByTestId('dashboard-top-channels')).toBeNull();
    expect(screen.queryByTestId('dashboard-top-demand')).toBeNull();
    expect(screen.queryByText(/Top channels|Top demand tags/)).toBeNull();
    expect(calls).toEqual(['/api/dashboard?view=dsp']);
  });

  it('SSP: top channels and demand tags from the dashboard answer, no extra report', async () => {
    renderIn('ssp');
    const channels = await screen.findByTestId('dashboard-top-channels');
    expect(within(channels).getByText('Top channels, last 7 days')).toBeTruthy();
    expect(within(channels).getByText('Demo player')).toBeTruthy();
    expect(within(screen.getByTestId('dashboard-top-demand')).getByText('Demo VAST tag')).toBeTruthy();
    expect(screen.queryByTestId('dashboard-top-campaigns')).toBeNull();
    expect(screen.queryByTestId('dashboard-top-suppliers')).toBeNull();
    expect(calls).toEqual(['/api/dashboard?view=ssp']);
  });
});

describe('the dashboard while its numbers load, and when they fail', () => {
  it('shows a skeleton in their place until the answer arrives', async () => {
    let answer: (r: Response) => void = () => undefined;
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    renderIn('ssp');
    expect(screen.getByTestId('dashboard-stats-loading').getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByTestId('dashboard-stats')).toBeNull();
    answer(jsonResponse(SSP_ANSWER));
    expect(await screen.findByTestId('dashboard-stats')).toBeTruthy();
    expect(screen.queryByTestId('dashboard-stats-loading')).toBeNull();
  });

  it('shows the error in their place, and the numbers after Try again', async () => {
    let fail = true;
    fetchMock.mockImplementation(async (input) => {
      calls.push(String(input));
      return fail ? jsonResponse({ message: 'The stats store is busy' }, 503) : jsonResponse(SSP_ANSWER);
    });
    renderIn('ssp');
    const error = await screen.findByTestId('dashboard-stats-error');
    expect(error.textContent).toContain('The numbers could not be loaded');
    expect(error.textContent).toContain('The stats store is busy');
    expect(screen.queryByTestId('dashboard-stats-loading')).toBeNull();
    fail = false;
    fireEvent.click(screen.getByTestId('dashboard-stats-retry'));
    expect(await screen.findByTestId('dashboard-top-channels')).toBeTruthy();
    expect(calls).toEqual(['/api/dashboard?view=ssp', '/api/dashboard?view=ssp']);
  });
});

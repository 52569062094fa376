import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { type FinanceAnswer, type SavedReport } from '@adplane/shared';
import { jsonResponse, makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import FinancePage from './finance/FinancePage.js';
import { ObservedPage } from './observed/ObservedPage.js';
import { OBSERVED } from './observed/observedKinds.js';
import SavedReportsPage from './reports/SavedReportsPage.js';

/** Saved reports, the traffic seen and the Financial Report page their tables as every list does: `1-3 of 3`. */
vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();

const report = (id: number): SavedReport => ({
  id,
  dt: '2026-11-02 10:00',
  name: `Report ${id}`,
  file: 0,
  ivt: 0,
  archived: false,
  status: 'ready',
  progress: 100,
  error: null,
  request: null,
});
const financeRow = (tenantId: number) => ({
  tenantId,
  name: `Demand ${tenantId}`,
  timezone: 0,
  priceReq: 0,
  priceImp: 0,
  pricePostbid: 0,
  priceDsp: 0,
  reqs: 10,
  imps: 5,
  postbidImps: 0,
  revenue: 1_000_000,
  systemCost: 0,
});
const FINANCE: FinanceAnswer = {
  month: '2026-11',
  rows: [1, 2, 3].map(financeRow),
  totals: { reqs: 30, imps: 15, postbidImps: 0, revenue: 3_000_000, systemCost: 0 },
};

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url.startsWith('/api/savedReports')) return jsonResponse([report(1), report(2), report(3)]);
    if (url.startsWith('/api/finance')) return jsonResponse(FINANCE);
    if (url === '/api/rrun')
      return jsonResponse([
        { app_bundle: 'com.a', reqs: 9 },
        { app_bundle: 'com.b', reqs: 5 },
        { total: true, reqs: 14 },
      ]);
    return jsonResponse([]);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const renderPage = (page: React.ReactNode, user = makeUser('demand'), path = '/') =>
  renderWithAuth(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="*" element={page} />
      </Routes>
    </MemoryRouter>,
    user,
  );

describe('the pager count on pages that are not resource lists', () => {
  it('Saved Reports', async () => {
    renderPage(<SavedReportsPage />);
    expect(await screen.findByText('1-3 of 3')).toBeTruthy();
  });

  it('the Financial Report', async () => {
    renderPage(<FinancePage />, makeUser('admin'));
    expect(await screen.findByText('1-3 of 3')).toBeTruthy();
    // time zones as everywhere else in the console (UTC±0, not UTC0)
    expect(screen.getAllByText('UTC±0')).toHaveLength(3);
  });

  it('traffic seen (applications)', async () => {
    renderPage(<ObservedPage kind={OBSERVED.applications} />, makeUser('demand'), '/applications');
    expect(await screen.findByText('1-2 of 2')).toBeTruthy();
  });
});

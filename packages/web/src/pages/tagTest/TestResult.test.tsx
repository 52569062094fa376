import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { type DecisionTrace, type SourceFate, type TagTestAnswer } from '@adplane/shared';
import { TestResult } from './TestResult.js';

// The player loads and plays the VAST: not what these tests look at.
vi.mock('./AdPlayer.js', () => ({ AdPlayer: () => <div data-testid="tag-test-player" /> }));

const campaign: SourceFate = {
  source: 'campaign',
  id: 7,
  name: 'Spring',
  priority: 0,
  fate: 'won',
  bidCpm: 7_000_000,
  clearingCpm: 6_500_000,
};
const lost: SourceFate = {
  source: 'vast_tag',
  id: 3,
  name: 'Beacon DSP',
  priority: 1,
  fate: 'lost',
  bidCpm: 4_000_000,
  lostTo: 'campaign#7',
  ms: 21,
};
const filtered: SourceFate = {
  source: 'vast_tag',
  id: 4,
  name: 'Harbor demand',
  priority: 2,
  fate: 'filtered',
  reason: 'targeting.os',
};

function answer(over: Partial<DecisionTrace>): TagTestAnswer {
  return {
    tested: { kind: 'channel', id: 1, name: 'Harbor CTV', format: 'video' },
    status: 200,
    vast: '<VAST version="4.2"/>',
    trace: {
      channel: null,
      context: {
        ip: '203.0.113.9',
        country: 'US',
        region: '',
        usState: '',
        device: 'desktop',
        os: 'windows',
        browser: 'chrome',
        tvFamily: '',
        playerSize: 'large',
        width: 640,
        height: 360,
        appBundle: '',
        domain: 'example.com',
      },
      ivt: null,
      result: 'filled',
      indexedOut: 0,
      sources: [campaign, lost, filtered],
      winner: campaign,
      totalMs: 25,
      snapshotVersion: 3,
      ...over,
    },
  };
}

/** The text of each cell of a result table's rows, by column title. */
function rowsOf(testId: string): Record<string, string>[] {
  const table = screen.getByTestId(testId);
  const titles = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
  return [...table.querySelectorAll('tbody tr.ant-table-row')].map((tr) =>
    Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [titles[i], td.textContent ?? ''])),
  );
}

const emptyMarks = (testId: string) => screen.getByTestId(testId).querySelectorAll('.empty-value').length;

describe('TestResult: empty cells', () => {
  it("shows the console's empty mark where a demand source has no bid or no time", () => {
    render(<TestResult answer={answer({})} />);
    const rows = rowsOf('tag-test-trace');
    expect(rows.map((r) => r.Source)).toEqual([
      'Campaign #7Spring',
      'VAST tag #3Beacon DSP',
      'VAST tag #4Harbor demand',
    ]);
    // the campaign was priced at once (no call, no time), the tag answered in 21 ms, the filtered one was never called
    expect(rows.map((r) => r['Bid CPM'])).toEqual(['$7.00', '$4.00', '—']);
    expect(rows.map((r) => r.Time)).toEqual(['—', '21 ms', '—']);
    expect(emptyMarks('tag-test-trace')).toBe(3);
    // the sentences of the trace keep their words, with the reason's code under them
    expect(rows[2]['What happened']).toBe('Filtered: its targeting refused the request (os)targeting.os');
  });

  it('shows a zero as a value, not as the mark', () => {
    render(
      <TestResult answer={answer({ sources: [{ ...lost, bidCpm: 0, ms: 0 }], winner: null, result: 'no_bid' })} />,
    );
    expect(rowsOf('tag-test-trace')).toEqual([expect.objectContaining({ 'Bid CPM': '$0.00', Time: '0 ms' })]);
    expect(emptyMarks('tag-test-trace')).toBe(0);
  });

  it("shows the mark in the length and price of an ad break's slot that no ad filled", () => {
    const pod = [
      { sequence: 1, result: 'filled', winner: campaign, maxDurationS: 60, durationS: 6 },
      {
        sequence: 2,
        result: 'filled',
        winner: { ...lost, fate: 'won' as const, clearingCpm: undefined },
        maxDurationS: 54,
        durationS: 0,
      },
      { sequence: 3, result: 'no_bid', winner: null, maxDurationS: 0, durationS: 0 },
    ];
    render(<TestResult answer={answer({ pod })} />);
    const rows = rowsOf('tag-test-pod');
    expect(rows.map((r) => r.Length)).toEqual(['6 s', 'unknown', '—']);
    expect(rows.map((r) => r.CPM)).toEqual(['$6.50', '—', '—']);
    expect(rows.map((r) => r['Room left'])).toEqual(['60 s', '54 s', 'any']);
    expect(rows[2].Ad).toMatch(/the break ends here\.$/);
    expect(emptyMarks('tag-test-pod')).toBe(3);
  });
});

describe('TestResult: campaigns set aside by targeting', () => {
  it('names each campaign the indexes set aside with its rules and their codes, and counts those not named', () => {
    render(
      <TestResult
        answer={answer({
          indexedOut: 203,
          indexedOutCampaigns: [
            {
              id: 12,
              name: 'Summer Promo',
              reason: 'targeting.country',
              misses: [
                { rule: 'country', include: true, values: ['DE'], more: 0, viewer: 'US' },
                { rule: 'device', include: true, values: ['smarttv'], more: 0, viewer: 'desktop' },
              ],
            },
          ],
        })}
      />,
    );
    expect(rowsOf('tag-test-set-aside')).toEqual([
      {
        Campaign: 'Campaign #12Summer Promo',
        Why: "country DE only; the viewer is in UStargeting.countrydevice smarttv only; the viewer's device is desktoptargeting.device",
      },
    ]);
    expect(screen.getByTestId('tag-test-set-aside-note').textContent).toBe(
      '203 campaigns were set aside by the targeting indexes (country, device, OS, size, day-part...) without being looked at one by one; the first 1 by name are listed, 202 more are not.',
    );
    expect(screen.getByTestId('tag-test-outcome-code').textContent).toBe('filled');
  });

  it('reads a few rows in the drawer without a box of their own, and scrolls a long list inside a tall one', () => {
    const aside = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: 100 + i,
        name: `Campaign ${i}`,
        reason: 'targeting.country',
        misses: [{ rule: 'country', include: true, values: ['DE'], more: 0, viewer: 'US' }],
      }));
    const innerBox = () => screen.getByTestId('tag-test-set-aside').querySelector<HTMLElement>('.ant-table-body');
    const { unmount } = render(<TestResult answer={answer({ indexedOut: 3, indexedOutCampaigns: aside(3) })} />);
    expect(rowsOf('tag-test-set-aside')).toHaveLength(3);
    expect(innerBox()).toBeNull();
    unmount();
    render(<TestResult answer={answer({ indexedOut: 40, indexedOutCampaigns: aside(40) })} />);
    expect(innerBox()?.style.maxHeight).toBe('560px');
  });
});

describe('TestResult: campaigns not in the ad server', () => {
  it('lists each with its reasons in words and codes', () => {
    render(
      <TestResult
        answer={answer({
          notInAdServer: {
            campaigns: [
              {
                id: 21,
                name: 'Winter Promo',
                reasons: [
                  { code: 'creative_pending', message: 'Creative pending approval: Snow spot' },
                  { code: 'budget_zero_daily', message: 'Daily budget is $0: it never spends' },
                ],
              },
            ],
            more: 0,
          },
        })}
      />,
    );
    expect(rowsOf('tag-test-not-served')).toEqual([
      {
        Campaign: 'Campaign #21Winter Promo',
        Why: 'Creative pending approval: Snow spotcreative_pendingDaily budget is $0: it never spendsbudget_zero_daily',
      },
    ]);
  });
});

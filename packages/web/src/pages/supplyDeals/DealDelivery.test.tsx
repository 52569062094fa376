import '../../test/setup.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { DealDelivery, DealDeliveryDetail, usedPercent } from './DealDelivery.js';

const lines = () => [...document.querySelectorAll<HTMLElement>('.deal-delivery-line')];
const bars = () => [...document.querySelectorAll<HTMLElement>('.deal-delivery-line .ant-progress')];

describe('DealDelivery', () => {
  afterEach(cleanup);

  it('shows each cap as delivered / cap over a bar of the share used', () => {
    render(<DealDelivery row={{ impCap: 50_000, dailyImpCap: 5_000 }} delivered={{ imps: 12_345, today: 1_200 }} />);
    expect(lines().map((l) => l.textContent)).toEqual(['12,345 / 50,000', '1,200 / 5,000 today']);
    expect(lines().map((l) => l.dataset.percent)).toEqual(['24.6', '24']);
    expect(bars().map((b) => b.getAttribute('aria-valuenow'))).toEqual(['24.6', '24']);
  });

  it('says the share on hover', async () => {
    render(<DealDelivery row={{ impCap: 50_000, dailyImpCap: 'unlimited' }} delivered={{ imps: 25_000, today: 10 }} />);
    expect(lines().map((l) => l.textContent)).toEqual(['25,000 / 50,000']);
    fireEvent.mouseEnter(lines()[0]!);
    expect(await screen.findByText('50% of the lifetime cap delivered')).toBeTruthy();
  });

  it('shows a daily cap alone with today, and a reached cap full', () => {
    render(<DealDelivery row={{ impCap: 'unlimited', dailyImpCap: 2 }} delivered={{ imps: 40, today: 3 }} />);
    expect(lines().map((l) => l.textContent)).toEqual(['3 / 2 today']);
    expect(lines()[0]!.dataset.percent).toBe('100');
  });

  it('shows the caps alone until the counts come', () => {
    render(<DealDelivery row={{ impCap: 50_000, dailyImpCap: 5_000 }} />);
    expect(screen.getByTestId('deal-cap').textContent).toBe('50,0005,000 a day');
    expect(lines()).toEqual([]);
  });

  it('says a deal without caps has none', () => {
    render(<DealDelivery row={{ impCap: 'unlimited', dailyImpCap: 'unlimited' }} />);
    expect(screen.getByText('No cap')).toBeTruthy();
    expect(screen.queryByTestId('deal-cap')).toBeNull();
  });
});

describe('DealDeliveryDetail', () => {
  afterEach(cleanup);

  it("shows the drawer's lines for a capped deal, nothing without counts", () => {
    const { rerender } = render(
      <DealDeliveryDetail row={{ impCap: 50_000, dailyImpCap: 5_000 }} delivered={{ imps: 12_345, today: 1_200 }} />,
    );
    expect(screen.getByTestId('deal-delivered').textContent).toBe(
      'Delivered against its caps12,345 / 50,0001,200 / 5,000 today',
    );
    rerender(<DealDeliveryDetail row={{ impCap: 'unlimited', dailyImpCap: 'unlimited' }} />);
    expect(screen.queryByTestId('deal-delivered')).toBeNull();
  });
});

describe('usedPercent', () => {
  it('rounds down to a tenth, stops at 100, and takes a cap of 0 as reached', () => {
    expect(usedPercent(1, 3)).toBe(33.3);
    expect(usedPercent(2, 3)).toBe(66.6);
    expect(usedPercent(0, 50_000)).toBe(0);
    expect(usedPercent(60_000, 50_000)).toBe(100);
    expect(usedPercent(0, 0)).toBe(100);
  });
});

import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen } from '@testing-library/react';
import { makeUser } from '../../test/fixtures.js';
import { renderEntityForm, stubEmptyLists } from '../../test/formHarness.js';
import { SupplyDealForm } from './SupplyDealForm.js';

vi.setConfig({ testTimeout: 20_000 });
stubEmptyLists();

const inputOf = (testId: string): HTMLInputElement => {
  const el = screen.getByTestId(testId);
  return (el.tagName === 'INPUT' ? el : el.querySelector('input')) as HTMLInputElement;
};

describe('SupplyDealForm impression caps', () => {
  it('shows no cap as Unlimited, and keeps a typed cap as a whole number of impressions', async () => {
    const form = renderEntityForm(
      SupplyDealForm,
      { status: 1, dealId: 'SD-1', auctionType: 1, impCap: 'unlimited', dailyImpCap: 'unlimited' },
      makeUser('demand'),
    );
    expect(await screen.findByText('Impression cap')).toBeTruthy();
    expect(screen.getByText('Daily impression cap')).toBeTruthy();
    expect(inputOf('deal-imp-cap').value).toBe('');
    expect(inputOf('deal-imp-cap-unlimited').checked).toBe(true);
    act(() => {
      fireEvent.change(inputOf('deal-imp-cap'), { target: { value: '50000' } });
      fireEvent.blur(inputOf('deal-imp-cap'));
    });
    expect(form.getFieldValue('impCap')).toBe(50_000);
    act(() => {
      fireEvent.click(inputOf('deal-daily-imp-cap-unlimited'));
    });
    expect(form.getFieldValue('dailyImpCap')).toBe(0);
    act(() => form.setFieldValue('dailyImpCap', 'unlimited'));
    expect(form.getFieldValue('dailyImpCap')).toBe('unlimited');
  });
});

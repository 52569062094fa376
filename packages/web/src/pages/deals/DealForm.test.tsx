import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, screen } from '@testing-library/react';
import { makeUser } from '../../test/fixtures.js';
import { renderEntityForm, stubEmptyLists } from '../../test/formHarness.js';
import { DealForm } from './DealForm.js';
import { AUCTION_TYPE_HINTS } from './dealTerms.js';

vi.setConfig({ testTimeout: 20_000 });
stubEmptyLists();

describe('DealForm auction type', () => {
  it('explains the auction type chosen, not always the fixed price', async () => {
    const form = renderEntityForm(DealForm, { auctionType: 1 }, makeUser('demand', { showDsp: true }));
    expect(await screen.findByText(AUCTION_TYPE_HINTS[1]!)).toBeTruthy();
    act(() => form.setFieldValue('auctionType', 3));
    expect(await screen.findByText(AUCTION_TYPE_HINTS[3]!)).toBeTruthy();
    expect(screen.queryByText(AUCTION_TYPE_HINTS[1]!)).toBeNull();
  });
});

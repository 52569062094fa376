import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { RowStamps } from './RowStamps.js';

const row = {
  id: 12,
  name: 'Pixel',
  status: 1,
  archived: false,
  uid: 'a1b2',
  createdAt: '2026-11-01T22:30:00.000Z',
  updatedAt: '2026-11-23T23:05:00.000Z',
};

describe('RowStamps', () => {
  afterEach(cleanup);

  it("shows a drawer's times on the signed-in user's clock, with the offset", () => {
    renderWithAuth(<RowStamps row={row} />, makeUser('demand', { timezone: 3 }));
    expect(screen.getByTestId('drawer-updated').textContent).toBe('2026-11-24 02:05 UTC+3');
    expect(screen.getByTestId('drawer-created').textContent).toBe('2026-11-02 01:30 UTC+3');
    expect(screen.getByTestId('row-stamps').textContent).toContain('#12 · uid a1b2');
  });

  it('moves with the user: another offset, the same instant', () => {
    renderWithAuth(<RowStamps row={row} />, makeUser('demand', { timezone: -10 }));
    expect(screen.getByTestId('drawer-updated').textContent).toBe('2026-11-23 13:05 UTC-10');
  });
});

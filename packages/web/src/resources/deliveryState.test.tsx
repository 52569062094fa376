import '../test/setup.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { deliveryReason, type DeliveryState } from '@adplane/shared';
import { DeliveryStatusTag, savedText } from './deliveryState.js';

const row = { id: 7, status: 1, archived: false };
const notServing: DeliveryState = {
  id: 7,
  serving: false,
  reasons: [deliveryReason('creative_pending', 'Spring spot'), deliveryReason('budget_zero_total')],
};

describe('DeliveryStatusTag', () => {
  afterEach(cleanup);

  it('shows Active only when the ad server serves the row', () => {
    render(<DeliveryStatusTag row={row} state={{ id: 7, serving: true, reasons: [] }} />);
    const tag = screen.getByTestId('row-status-7');
    expect(tag.textContent).toBe('Active');
    expect(tag.dataset.serving).toBe('yes');
  });

  it('shows Not serving in the warning colour, with every reason on hover', async () => {
    render(<DeliveryStatusTag row={row} state={notServing} />);
    const tag = screen.getByTestId('row-status-7');
    expect(tag.textContent).toBe('Not serving');
    expect(tag.className).toContain('ant-tag-warning');
    fireEvent.mouseEnter(tag);
    expect(await screen.findByText('Creative pending approval: Spring spot')).toBeTruthy();
    expect(screen.getByText('Total budget is $0: it never spends')).toBeTruthy();
  });

  it('keeps Paused and Archived as set, and the row status while the state is unknown', () => {
    render(
      <>
        <DeliveryStatusTag row={{ ...row, status: 0 }} state={notServing} />
        <DeliveryStatusTag row={{ ...row, archived: true }} state={notServing} />
        <DeliveryStatusTag row={row} />
      </>,
    );
    expect(screen.getByText('Paused')).toBeTruthy();
    expect(screen.getByText('Archived')).toBeTruthy();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.queryByText('Not serving')).toBeNull();
  });
});

describe('savedText', () => {
  it('says what must happen for a saved row to serve: the first reason', () => {
    expect(savedText(notServing)).toBe('Saved; it will not serve until the creative is approved');
    expect(savedText({ id: 1, serving: false, reasons: [deliveryReason('no_channel')] })).toBe(
      'Saved; it will not serve until a channel lists it',
    );
    expect(savedText({ id: 1, serving: true, reasons: [] })).toBe('Saved');
  });
});

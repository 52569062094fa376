import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { LOADING_BAR_DELAY_MS } from '@adplane/shared';
import { LoadingBarView } from './LoadingBar.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('loading bar', () => {
  it('stays hidden for work shorter than the delay', () => {
    const { rerender } = render(<LoadingBarView active />);
    act(() => vi.advanceTimersByTime(LOADING_BAR_DELAY_MS - 1));
    rerender(<LoadingBarView active={false} />);
    act(() => vi.advanceTimersByTime(1_000));
    expect(screen.queryByTestId('loading-bar')).toBeNull();
  });

  it('appears after the delay, creeps, then finishes and hides', () => {
    const { rerender } = render(<LoadingBarView active />);
    act(() => vi.advanceTimersByTime(LOADING_BAR_DELAY_MS));
    expect(screen.getByTestId('loading-bar')).toBeTruthy();
    act(() => vi.advanceTimersByTime(50));
    expect(screen.getByTestId('loading-bar').getAttribute('data-phase')).toBe('running');
    rerender(<LoadingBarView active={false} />);
    expect(screen.getByTestId('loading-bar').getAttribute('data-phase')).toBe('done');
    act(() => vi.advanceTimersByTime(500));
    expect(screen.queryByTestId('loading-bar')).toBeNull();
  });
});

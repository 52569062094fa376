import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { DayPartingField } from './DayPartingField.js';
import { type DayPartingValue } from './dayParting.js';

// antd renders slowly in jsdom when the whole suite runs at once.
vi.setConfig({ testTimeout: 20_000 });

let last: DayPartingValue | null = null;

function Harness({ initial }: { initial: DayPartingValue }) {
  const [value, setValue] = useState(initial);
  return (
    <DayPartingField
      value={value}
      onChange={(v) => {
        last = v;
        setValue(v);
      }}
    />
  );
}

const on = (testId: string) => screen.getByTestId(testId).getAttribute('aria-pressed') === 'true';
const cell = (d: number, h: number) => screen.getByTestId(`daypart-cell-${d}-${h}`).getAttribute('data-on');

describe('DayPartingField', () => {
  it('paints hours by dragging across the hour labels, and shows the product in the grid', () => {
    render(<Harness initial={{ enabled: true, timezone: -5, days: [0, 1, 2, 3, 4], hours: [] }} />);
    fireEvent.mouseDown(screen.getByTestId('daypart-hour-19'), { button: 0 });
    fireEvent.mouseEnter(screen.getByTestId('daypart-hour-20'));
    // Wandering into the grid keeps painting the column under the pointer.
    fireEvent.mouseEnter(screen.getByTestId('daypart-cell-3-22'));
    fireEvent.mouseUp(window);
    // After the mouse is up, passing over labels changes nothing.
    fireEvent.mouseEnter(screen.getByTestId('daypart-hour-23'));
    expect(last?.hours).toEqual([19, 20, 21, 22]);
    expect(on('daypart-hour-21')).toBe(true);
    expect(on('daypart-hour-23')).toBe(false);
    expect(cell(0, 19)).toBe('1');
    expect(cell(5, 19)).toBe('0');
    expect(screen.getByTestId('daypart-summary').textContent).toBe('Mon-Fri 19:00-23:00 (UTC-5)');
  });

  it('un-paints days when the drag starts on a ticked day', () => {
    render(<Harness initial={{ enabled: true, timezone: 0, days: [0, 1, 2, 3, 4, 5, 6], hours: [9] }} />);
    fireEvent.mouseDown(screen.getByTestId('daypart-day-6'), { button: 0 });
    fireEvent.mouseEnter(screen.getByTestId('daypart-day-4'));
    fireEvent.mouseEnter(screen.getByTestId('daypart-day-5'));
    fireEvent.mouseUp(window);
    // Coming back from Fri to Sat restores Fri.
    expect(last?.days).toEqual([0, 1, 2, 3, 4]);
  });

  it('applies the shortcuts and toggles a label from the keyboard', () => {
    render(<Harness initial={{ enabled: true, timezone: 0, days: [], hours: [] }} />);
    fireEvent.click(screen.getByTestId('daypart-weekends'));
    expect(last).toMatchObject({ days: [5, 6], hours: Array.from({ length: 24 }, (_, h) => h) });
    fireEvent.click(screen.getByTestId('daypart-prime'));
    expect(last?.hours).toEqual([19, 20, 21, 22]);
    // A keyboard click has detail 0.
    fireEvent.click(screen.getByTestId('daypart-day-0'), { detail: 0 });
    expect(last?.days).toEqual([0, 5, 6]);
    fireEvent.click(screen.getByTestId('daypart-clear'));
    expect(last).toMatchObject({ days: [], hours: [] });
  });

  it('locks the grid while day-parting is off, and turns it on with the switch', () => {
    last = null;
    render(<Harness initial={{ enabled: false, timezone: 0, days: [0], hours: [1] }} />);
    expect((screen.getByTestId('daypart-hour-5') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.mouseDown(screen.getByTestId('daypart-hour-5'), { button: 0 });
    expect(last).toBeNull();
    expect(screen.getByTestId('daypart-summary').textContent).toBe('Off: serves around the clock');
    fireEvent.click(screen.getByTestId('daypart-enabled'));
    expect(last).toMatchObject({ enabled: true, days: [0], hours: [1] });
    expect((screen.getByTestId('daypart-hour-5') as HTMLButtonElement).disabled).toBe(false);
  });
});

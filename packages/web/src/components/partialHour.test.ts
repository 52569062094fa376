import { describe, expect, it } from 'vitest';
import {
  barsWithPartialHour,
  lineWithPartialHour,
  PARTIAL_HOUR_NOTE,
  partialHourTooltip,
  splitAtPartialHour,
} from './partialHour.js';

describe('the partial hour of a chart by hour', () => {
  it('leaves the partial hour out of the line and draws it as a dashed piece from the hour before', () => {
    expect(splitAtPartialHour([5, 6, 7, 1], 3)).toEqual({ complete: [5, 6, 7, null], piece: [null, null, 7, 1] });
    // not on the axis, or nothing there: the line as it is
    expect(splitAtPartialHour([5, 6], -1)).toEqual({ complete: [5, 6], piece: null });
    expect(splitAtPartialHour([5, null], 1)).toEqual({ complete: [5, null], piece: null });
  });

  it('gives the dashed piece the line name and colour, so the legend shows one entry', () => {
    const [main, piece] = lineWithPartialHour({ name: 'Today', type: 'line', smooth: true }, [1, 2, 0.5], 2, '#123');
    expect(main).toMatchObject({ name: 'Today', data: [1, 2, null], lineStyle: { color: '#123' } });
    expect(piece).toMatchObject({
      name: 'Today',
      data: [null, 2, 0.5],
      lineStyle: { color: '#123', type: 'dashed' },
      itemStyle: { color: '#123' },
    });
    expect(lineWithPartialHour({ name: 'Today', type: 'line' }, [1, 2], -1, '#123')).toHaveLength(1);
  });

  it('draws the partial bar lighter', () => {
    expect(barsWithPartialHour([3, 4], 1)).toEqual([3, { value: 4, itemStyle: { opacity: 0.45 } }]);
  });

  it('names the partial hour in the tooltip and shows each line once', () => {
    const tooltip = partialHourTooltip((v) => `$${v.toFixed(2)}`, 2);
    const at = (dataIndex: number) => [
      { seriesId: 'a', seriesName: 'Today <b>', value: dataIndex === 2 ? null : 2, dataIndex, axisValueLabel: '02:00' },
      { seriesId: 'partial-hour:Today', seriesName: 'Today <b>', value: 2, dataIndex, axisValueLabel: '02:00' },
      { seriesId: 'b', seriesName: 'Yesterday', value: 9, dataIndex, axisValueLabel: '02:00' },
    ];
    expect(tooltip(at(2))).toBe(
      `02:00 <em>(${PARTIAL_HOUR_NOTE})</em><br/>Today &lt;b&gt;: $2.00<br/>Yesterday: $9.00`,
    );
    expect(tooltip(at(1))).toBe('02:00<br/>Today &lt;b&gt;: $2.00<br/>Yesterday: $9.00');
  });
});

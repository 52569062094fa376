import '../../test/setup.js';
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { type ReactNode } from 'react';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { ivtColumns } from './index.js';

const sample = ivtColumns.find((c) => c.key === 'samplePercent') as {
  render: (v: unknown, row: ResourceRow, i: number) => ReactNode;
};
const cell = (v: unknown) => render(<span>{sample.render(v, {} as ResourceRow, 0)}</span>).container.textContent;

describe('3rd Party Pixels list', () => {
  it('shows the sample as every percent of the console, with two decimals', () => {
    expect(cell(10)).toBe('10.00%');
    expect(cell(100)).toBe('100.00%');
    expect(cell(12.5)).toBe('12.50%');
    expect(cell(null)).toBe('—');
  });
});

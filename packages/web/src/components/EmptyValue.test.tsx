import '../test/setup.js';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { EMPTY_MARK, isEmptyValue, textOrEmpty } from '../format/empty.js';
import { CopyValue } from '../resources/cells.js';
import { accountColumns } from '../pages/accounts/columns.js';
import { AdvertiserName } from '../pages/dsp/AdvertiserName.js';
import { EmptyValue, orEmpty } from './EmptyValue.js';

describe('the empty mark', () => {
  it('is one em dash, for absent, null, blank and empty-list values only', () => {
    expect(EMPTY_MARK).toBe('—');
    for (const v of [null, undefined, '', '   ', []]) expect(isEmptyValue(v)).toBe(true);
    for (const v of [0, false, 'x', ['a']]) expect(isEmptyValue(v)).toBe(false);
    expect(textOrEmpty(null)).toBe('—');
    expect(textOrEmpty(0)).toBe('0');
  });

  it('is drawn in the secondary grey', () => {
    render(<EmptyValue testId="empty" />);
    expect(screen.getByTestId('empty').textContent).toBe('—');
    expect(screen.getByTestId('empty').className).toContain('ant-typography-secondary');
  });

  it('orEmpty shows the value through its renderer, or the mark', () => {
    render(
      <div>
        <span data-testid="a">{orEmpty(42, (n) => `${n} ms`)}</span>
        <span data-testid="b">{orEmpty<number>(null, (n) => `${n} ms`)}</span>
        <span data-testid="c">{orEmpty('')}</span>
      </div>,
    );
    expect(screen.getByTestId('a').textContent).toBe('42 ms');
    expect(screen.getByTestId('b').textContent).toBe('—');
    expect(screen.getByTestId('c').textContent).toBe('—');
  });
});

describe('lists show the same mark for a missing value (no "-", no "None")', () => {
  it('account columns, advertiser names and copyable ids', () => {
    const company = accountColumns().find((c) => c.key === 'companyName') as {
      render: (v: unknown) => React.ReactNode;
    };
    render(
      <div>
        <span data-testid="company">{company.render('')}</span>
        <span data-testid="adv">
          <AdvertiserName names={new Map()} id={null} />
        </span>
        <span data-testid="uid">
          <CopyValue value="" />
        </span>
      </div>,
    );
    for (const id of ['company', 'adv', 'uid']) expect(screen.getByTestId(id).textContent).toBe('—');
  });
});

import { Typography } from 'antd';
import { type ReactNode } from 'react';
import { EMPTY_MARK, isEmptyValue } from '../format/empty.js';

/** The empty mark (format/empty.ts) as the console draws it: a grey em dash. */
export function EmptyValue({ testId }: { testId?: string }) {
  return (
    <Typography.Text type="secondary" className="empty-value" data-testid={testId}>
      {EMPTY_MARK}
    </Typography.Text>
  );
}

/** A table cell or description: `shown(value)` when there is a value, else the empty mark. */
export function orEmpty<T>(value: T | null | undefined, shown: (value: T) => ReactNode = (v) => String(v)): ReactNode {
  return isEmptyValue(value) ? <EmptyValue /> : shown(value as T);
}

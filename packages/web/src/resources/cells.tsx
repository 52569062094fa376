import { Tooltip, Typography } from 'antd';
import { type ReactNode } from 'react';
import { EmptyValue } from '../components/EmptyValue.js';

/**
 * Table cells that keep rows one line high: a long value is cut with an ellipsis, and whoever needs
 * all of it hovers for a tooltip and copies it with the copy icon (endpoints, tag URLs, deal ids).
 * Give the column `ellipsis: { showTitle: false }` and a width (or let it take the rest). No value
 * shows the empty mark.
 */
export function CopyValue({
  value,
  shown,
  mono = true,
  testId,
}: {
  value: string;
  shown?: ReactNode;
  mono?: boolean;
  testId?: string;
}) {
  if (!value) return <EmptyValue />;
  return (
    <span className="cell-copy" data-testid={testId}>
      <Tooltip title={value} placement="topLeft" mouseEnterDelay={0.3}>
        <span className={`cell-ellipsis${mono ? ' cell-mono' : ''}`}>{shown ?? value}</span>
      </Tooltip>
      <Typography.Text className="cell-copy-icon" copyable={{ text: value, tooltips: ['Copy', 'Copied'] }} />
    </span>
  );
}

/** A text cut to one line with its whole text on hover; given as lines, the hover shows one a line. */
export function EllipsisText({
  text,
  children,
  className,
}: {
  text: string | readonly string[];
  children?: ReactNode;
  className?: string;
}) {
  const title = typeof text === 'string' ? text : text.map((line) => <div key={line}>{line}</div>);
  return (
    <Tooltip title={title} placement="topLeft" mouseEnterDelay={0.5}>
      <span className={`cell-ellipsis${className ? ` ${className}` : ''}`}>
        {children ?? (typeof text === 'string' ? text : text.join(' · '))}
      </span>
    </Tooltip>
  );
}

/**
 * A column title kept short for a narrow column (`Imp. CPM`), its full name on hover, and that name
 * as the column's `label` in the column chooser.
 */
export function shortTitle(short: string, full: string): { title: ReactNode; label: string } {
  return {
    title: (
      <Tooltip title={full}>
        <span>{short}</span>
      </Tooltip>
    ),
    label: full,
  };
}

import { Typography } from 'antd';
import { useClock } from '../format/clock.js';
import { type ResourceRow } from './resourceApi.js';

/**
 * A saved row's identity and times at the foot of its drawer: `#12 · uid 3f9c… · created … · updated …`,
 * on the same clock as the list's Updated column (the user's offset, said in the text).
 */
export function RowStamps({ row }: { row: ResourceRow }) {
  const clock = useClock();
  return (
    <Typography.Text type="secondary" className="row-stamps" data-testid="row-stamps">
      #{row.id}
      {row.uid ? <> · uid {row.uid}</> : null}
      {row.createdAt ? (
        <>
          {' '}
          · created <span data-testid="drawer-created">{clock(row.createdAt)}</span>
        </>
      ) : null}
      {row.updatedAt ? (
        <>
          {' '}
          · updated <span data-testid="drawer-updated">{clock(row.updatedAt)}</span>
        </>
      ) : null}
    </Typography.Text>
  );
}

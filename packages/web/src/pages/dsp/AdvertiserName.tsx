import { Typography } from 'antd';
import { EllipsisText } from '../../resources/cells.js';
import { nameOf } from './names.js';

/** A row's advertiser in a list: its name (whole on hover), or a grey "None" when the row has none. */
export function AdvertiserName({ names, id }: { names: Map<number, string>; id: unknown }) {
  if (typeof id !== 'number') return <Typography.Text type="secondary">None</Typography.Text>;
  return <EllipsisText text={nameOf(names, id)} />;
}

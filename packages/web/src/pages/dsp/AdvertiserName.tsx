import { EmptyValue } from '../../components/EmptyValue.js';
import { EllipsisText } from '../../resources/cells.js';
import { nameOf } from './names.js';

/** A row's advertiser in a list: its name (whole on hover), or the empty mark when the row has none. */
export function AdvertiserName({ names, id }: { names: Map<number, string>; id: unknown }) {
  if (typeof id !== 'number') return <EmptyValue />;
  return <EllipsisText text={nameOf(names, id)} />;
}

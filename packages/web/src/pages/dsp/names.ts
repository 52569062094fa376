import { useMemo } from 'react';
import { type ListName, useList } from '../../api/lists.js';

/** Names by id from a shared list, for list columns that show a reference (the advertiser of a campaign). */
export function useNames(list: ListName): Map<number, string> {
  const { items } = useList(list);
  return useMemo(() => new Map(items.map((i) => [Number(i.id), i.name])), [items]);
}

/** A reference shown by name, or `#id` while the list loads or when the row is gone; '' for none. */
export function nameOf(names: Map<number, string>, id: unknown): string {
  if (typeof id !== 'number') return '';
  return names.get(id) ?? `#${id}`;
}

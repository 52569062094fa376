import { useCallback, useState } from 'react';
import { ROW_STATS_PERIODS, type RowStatsPeriod, STORAGE_KEYS } from '@adplane/shared';
import { readStorage, writeStorage } from '../prefs/storage.js';

/**
 * What a person sets once on the list pages and expects to find again, kept in local storage per
 * user (one browser may serve several sign-ins): the period of the numbers beside rows (one for every
 * list: a trader watching yesterday watches it everywhere) and the hidden columns of each list.
 */
export const periodKey = (userId: number) => `${STORAGE_KEYS.periodPrefix}${userId}`;
export const columnsKey = (userId: number, list: string) => `${STORAGE_KEYS.columnsPrefix}${userId}_${list}`;

export function readPeriod(userId: number, storage: Storage = localStorage): RowStatsPeriod {
  const stored = readStorage(storage, periodKey(userId));
  return (ROW_STATS_PERIODS as readonly string[]).includes(stored ?? '') ? (stored as RowStatsPeriod) : 'today';
}

function writePeriod(userId: number, period: RowStatsPeriod, storage: Storage = localStorage): void {
  writeStorage(storage, periodKey(userId), period);
}

/** The keys of the columns the user hid on a list; none stored means the list's defaults. */
export function readHiddenColumns(userId: number, list: string, storage: Storage = localStorage): string[] | null {
  const raw = readStorage(storage, columnsKey(userId, list));
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null;
  } catch {
    return null;
  }
}

function writeHiddenColumns(
  userId: number,
  list: string,
  hidden: readonly string[],
  storage: Storage = localStorage,
): void {
  writeStorage(storage, columnsKey(userId, list), JSON.stringify([...hidden]));
}

export function usePeriod(userId: number): [RowStatsPeriod, (p: RowStatsPeriod) => void] {
  const [period, setPeriod] = useState(() => readPeriod(userId));
  const change = useCallback(
    (p: RowStatsPeriod) => {
      writePeriod(userId, p);
      setPeriod(p);
    },
    [userId],
  );
  return [period, change];
}

/** Hidden column keys of a list: the stored choice, else `defaults` (columns a list hides until asked). */
export function useHiddenColumns(
  userId: number,
  list: string,
  defaults: readonly string[] = [],
): [string[], (hidden: string[]) => void] {
  const [hidden, setHidden] = useState<string[]>(() => readHiddenColumns(userId, list) ?? [...defaults]);
  const change = useCallback(
    (next: string[]) => {
      writeHiddenColumns(userId, list, next);
      setHidden(next);
    },
    [userId, list],
  );
  return [hidden, change];
}

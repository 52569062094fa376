import { useCallback, useEffect, useRef, useState } from 'react';
import { SAVED_REPORTS_MAX, SAVED_REPORTS_POLL_MS, type SavedReport } from '@adplane/shared';
import { reportsApi } from '../api/reports.js';

export type BellEntry = SavedReport & { isNew: boolean };

/** Pages that add a saved report or start a file tell the bell to look now instead of in a minute. */
const SAVED_REPORTS_CHANGED = 'adplane:saved-reports-changed';
export const announceSavedReports = () => window.dispatchEvent(new Event(SAVED_REPORTS_CHANGED));

/** A file not written yet: waiting in line, or being written. */
const inProgress = (report: Pick<SavedReport, 'status'>) => report.status === 'waiting' || report.status === 'running';

/** What a file waiting in line shows: 'waits: 2 files ahead' (its owner's file being written and those queued before it). */
export function fileWaitText(ahead: number | undefined): string {
  if (!ahead) return 'waits: next in line';
  return `waits: ${ahead} ${ahead === 1 ? 'file' : 'files'} ahead`;
}

/** While a file waits or is being written the bell refreshes its state this often. */
const RUNNING_POLL_MS = 2000;

/** Merge newly polled reports in front, flagged new, keeping at most 20 (the bell's list stays short). */
function mergeNew(current: readonly BellEntry[], fresh: readonly SavedReport[]): BellEntry[] {
  const known = new Set(current.map((e) => e.id));
  const added = fresh.filter((r) => !known.has(r.id)).map((r) => ({ ...r, isNew: true }));
  return [...added, ...current].sort((a, b) => b.id - a.id).slice(0, SAVED_REPORTS_MAX);
}

/**
 * The saved-report bell's state: the first load, then `GET /api/savedReports?last={lastId}` every 60 s
 * (errors only logged: a poll that fails is tried again at the next); new entries are bold and light
 * the bell until it is clicked.
 */
export function useSavedReportsFeed() {
  const [entries, setEntries] = useState<BellEntry[]>([]);
  const [highlighted, setHighlighted] = useState(false);
  const lastId = useRef<number | null>(null);
  const entriesRef = useRef(entries);
  entriesRef.current = entries;

  const poll = useCallback(async () => {
    try {
      if (lastId.current === null) {
        const first = await reportsApi.list({ silent: true });
        lastId.current = first.reduce((max, r) => Math.max(max, r.id), 0);
        setEntries(first.map((r) => ({ ...r, isNew: false })));
        return;
      }
      const fresh = await reportsApi.list({ last: lastId.current, silent: true });
      if (fresh.length > 0) {
        lastId.current = fresh.reduce((max, r) => Math.max(max, r.id), lastId.current);
        setEntries((current) => mergeNew(current, fresh));
        setHighlighted(true);
      }
      // Files waiting or being written: read their place in line or progress again.
      const running = entriesRef.current.filter(inProgress);
      if (running.length > 0) {
        const updated = await Promise.all(running.map((e) => reportsApi.get(e.id, { silent: true })));
        // (a file that started has no `ahead` any more: the fresh answer replaces the entry's fields)
        setEntries((current) =>
          current.map((e) => {
            const fresh = updated.find((u) => u.id === e.id);
            return fresh ? { ...fresh, isNew: e.isNew } : e;
          }),
        );
      }
    } catch (error) {
      console.error('Saved reports poll failed', error);
    }
  }, []);

  useEffect(() => {
    void poll();
    const timer = setInterval(() => void poll(), SAVED_REPORTS_POLL_MS);
    const now = () => void poll();
    window.addEventListener(SAVED_REPORTS_CHANGED, now);
    return () => {
      clearInterval(timer);
      window.removeEventListener(SAVED_REPORTS_CHANGED, now);
    };
  }, [poll]);

  const anyRunning = entries.some(inProgress);
  useEffect(() => {
    if (!anyRunning) return;
    const timer = setInterval(() => void poll(), RUNNING_POLL_MS);
    return () => clearInterval(timer);
  }, [anyRunning, poll]);

  return {
    entries,
    highlighted,
    clearHighlight: () => setHighlighted(false),
    markSeen: (id: number) => setEntries((current) => current.map((e) => (e.id === id ? { ...e, isNew: false } : e))),
    remove: async (id: number) => {
      try {
        await reportsApi.remove(id);
        setEntries((current) => current.filter((e) => e.id !== id));
      } catch (error) {
        console.error('Deleting a saved report failed', error);
      }
    },
  };
}

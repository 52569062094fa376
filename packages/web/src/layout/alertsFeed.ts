import { useCallback, useEffect, useRef, useState } from 'react';
import { ALERTS_POLL_MS, type AlertEpisode } from '@adplane/shared';
import { alertsApi } from '../api/alerts.js';

/** Episodes the bell shows: the newest few, fired or cleared. */
const BELL_ALERTS = 5;

/** An episode's state as the bell knows it: a fired episode that clears is news again. */
const stateKey = (e: AlertEpisode) => `${e.id}:${e.clearedAt ?? ''}`;

/**
 * The bell's alerts (a demand user's tenant's): the newest episodes, read at once and then every
 * minute; an episode that fired or cleared since the last read lights the bell, as a new saved report does.
 */
export function useAlertsFeed(enabled: boolean) {
  const [episodes, setEpisodes] = useState<AlertEpisode[]>([]);
  const [highlighted, setHighlighted] = useState(false);
  const seen = useRef<Set<string> | null>(null);

  const poll = useCallback(async () => {
    try {
      const latest = await alertsApi.episodes({ limit: BELL_ALERTS, silent: true });
      const known = seen.current;
      if (known && latest.some((e) => !known.has(stateKey(e)))) setHighlighted(true);
      seen.current = new Set([...(known ?? []), ...latest.map(stateKey)]);
      setEpisodes(latest);
    } catch (error) {
      console.error('Alerts poll failed', error);
    }
  }, []);

  useEffect(() => {
    if (!enabled) return;
    void poll();
    const timer = setInterval(() => void poll(), ALERTS_POLL_MS);
    return () => clearInterval(timer);
  }, [enabled, poll]);

  return { episodes, highlighted, clearHighlight: () => setHighlighted(false) };
}

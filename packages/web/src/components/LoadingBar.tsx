import { useEffect, useState, useSyncExternalStore } from 'react';
import { useNavigation } from 'react-router';
import { LOADING_BAR_DELAY_MS, LOADING_BAR_DURATION_MS } from '@adplane/shared';
import { pendingLoads, subscribeLoading } from './loadingStore.js';

type Phase = 'idle' | 'started' | 'running' | 'done';

/**
 * A thin progress bar at the top of the window: it appears only when a route
 * navigation or a data load lasts longer than LOADING_BAR_DELAY_MS, creeps towards 90 % over about
 * LOADING_BAR_DURATION_MS, and runs to the end and fades when the work is done.
 */
export function LoadingBarView({ active }: { active: boolean }) {
  const [phase, setPhase] = useState<Phase>('idle');

  useEffect(() => {
    if (active) {
      const timer = setTimeout(() => setPhase('started'), LOADING_BAR_DELAY_MS);
      return () => clearTimeout(timer);
    }
    setPhase((current) => (current === 'idle' ? 'idle' : 'done'));
    return undefined;
  }, [active]);

  useEffect(() => {
    if (phase === 'started') {
      // Two frames: the browser must paint the empty bar before the width transition starts.
      let second = 0;
      const first = requestAnimationFrame(() => {
        second = requestAnimationFrame(() => setPhase('running'));
      });
      return () => {
        cancelAnimationFrame(first);
        cancelAnimationFrame(second);
      };
    }
    if (phase === 'done') {
      const timer = setTimeout(() => setPhase('idle'), 450);
      return () => clearTimeout(timer);
    }
    return undefined;
  }, [phase]);

  if (phase === 'idle') return null;
  const style =
    phase === 'started'
      ? { width: '0%', transition: 'none' }
      : phase === 'running'
        ? { width: '90%', transition: `width ${LOADING_BAR_DURATION_MS}ms cubic-bezier(0.1, 0.6, 0.2, 1)` }
        : { width: '100%', opacity: 0, transition: 'width 200ms ease-out, opacity 250ms ease-in 200ms' };
  return (
    <div className="loading-bar" role="progressbar" aria-label="Loading" data-testid="loading-bar" data-phase={phase}>
      <div className="loading-bar-fill" style={style} />
    </div>
  );
}

/** The bar for the whole console: route navigations plus API calls in flight. */
export function LoadingBar() {
  const navigation = useNavigation();
  const loads = useSyncExternalStore(subscribeLoading, pendingLoads, () => 0);
  return <LoadingBarView active={navigation.state !== 'idle' || loads > 0} />;
}

/**
 * Counts data loads in flight so that the top loading bar can show them next to route navigations.
 * Every `beginLoading()` returns its own `done` function; calling it twice is harmless.
 */
type Listener = () => void;

let pending = 0;
const listeners = new Set<Listener>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function beginLoading(): () => void {
  pending += 1;
  emit();
  let finished = false;
  return () => {
    if (finished) return;
    finished = true;
    pending -= 1;
    emit();
  };
}

export function pendingLoads(): number {
  return pending;
}

export function subscribeLoading(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

import { useEffect, useSyncExternalStore } from 'react';
import { type CampaignPacing, PACING_MAX_IDS, type PacingAnswer } from '@adplane/shared';
import { api } from '../../api/client.js';
import { errorText } from '../../errors/messages.js';

/**
 * Live pacing of campaigns (GET /api/demand/campaigns/pacing), shared by the list's cells and the
 * drawer: cells ask for their campaign, the asks of one render go out as one call (at most
 * PACING_MAX_IDS ids each); the campaigns on screen are asked again together every REFRESH_MS.
 */
const FRESH_MS = 30_000;
const answers = new Map<number, { value: CampaignPacing; at: number }>();
/** Why the last ask of a campaign without an answer yet failed (shown in the answer's place). */
const failures = new Map<number, string>();
const waiting = new Set<number>();
const inFlight = new Set<number>();
const listeners = new Set<() => void>();
let version = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

const notify = () => {
  version++;
  for (const l of listeners) l();
};

async function send(): Promise<void> {
  timer = null;
  const ids = [...waiting];
  waiting.clear();
  for (let at = 0; at < ids.length; at += PACING_MAX_IDS) {
    const chunk = ids.slice(at, at + PACING_MAX_IDS);
    chunk.forEach((id) => inFlight.add(id));
    try {
      // Silent: the live numbers are a second layer; a refusal must not sign anyone out of a list they can see.
      const answer = await api.get<PacingAnswer>(`/api/demand/campaigns/pacing?ids=${chunk.join(',')}`, {
        silent: true,
        ignoreForbidden: true,
      });
      for (const p of answer.campaigns) {
        answers.set(p.campaignId, { value: p, at: Date.now() });
        failures.delete(p.campaignId);
      }
    } catch (error) {
      console.error('Loading the live pacing failed', error);
      for (const id of chunk) failures.set(id, errorText(error));
    } finally {
      chunk.forEach((id) => inFlight.delete(id));
    }
  }
  notify();
}

/** Ask for these campaigns' pacing unless a fresh answer is at hand (`force`: ask anyway). */
function requestPacing(ids: readonly number[], force = false): void {
  const now = Date.now();
  for (const id of ids) {
    const known = answers.get(id);
    if (!inFlight.has(id) && (force || !known || now - known.at > FRESH_MS)) waiting.add(id);
  }
  if (waiting.size && !timer) timer = setTimeout(() => void send(), 0);
}

export function pacingOf(id: number): CampaignPacing | undefined {
  return answers.get(id)?.value;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Campaigns on screen (cells, drawers), refreshed together every REFRESH_MS while any is. */
const REFRESH_MS = 15_000;
const watched = new Map<number, number>();
let ticker: ReturnType<typeof setInterval> | null = null;

function watch(id: number): () => void {
  watched.set(id, (watched.get(id) ?? 0) + 1);
  ticker ??= setInterval(() => requestPacing([...watched.keys()], true), REFRESH_MS);
  requestPacing([id]);
  return () => {
    const n = (watched.get(id) ?? 1) - 1;
    if (n > 0) watched.set(id, n);
    else watched.delete(id);
    if (!watched.size && ticker) {
      clearInterval(ticker);
      ticker = null;
    }
  };
}

/**
 * A campaign's live pacing (`pacing` undefined until the first answer) and, while there is none, why
 * the last ask failed (`error`; asked again with the others every REFRESH_MS); re-renders when
 * answers arrive.
 */
export function useCampaignPacing(id: number): { pacing: CampaignPacing | undefined; error: string | undefined } {
  useSyncExternalStore(subscribe, () => version);
  useEffect(() => watch(id), [id]);
  const pacing = pacingOf(id);
  return { pacing, error: pacing ? undefined : failures.get(id) };
}

/** Tests: forget every answer. */
export function resetLivePacing(): void {
  answers.clear();
  failures.clear();
  waiting.clear();
  inFlight.clear();
  notify();
}

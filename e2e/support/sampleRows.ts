import { type Page } from '@playwright/test';

/** A 15 s 640x360 video creative's body for POST /api/demand/creatives, with `extra` fields (approval, ...) over it. */
export const videoCreativeBody = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  format: 'video',
  videoSource: 'media',
  clickUrl: 'https://brand.example.com/',
  mediaFiles: [
    { url: 'https://cdn.example.com/e2e.mp4', mime: 'video/mp4', duration: 15, width: 640, height: 360, bitrate: 800 },
  ],
  ...extra,
});

/** A day `offset` days from today (UTC), as a flight's date: 2026-11-29. */
export const dayFromToday = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Creates a row through the API in the page (the console's origin and session), as the console's
 * forms do: POST `url` with `body`, expecting 201. Returns the row's id and uid.
 */
export async function createRow(page: Page, url: string, body: unknown): Promise<{ id: number; uid: string }> {
  return page.evaluate(
    async ([u, b]) => {
      const res = await fetch(u as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      });
      if (res.status !== 201) throw new Error(`${u}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number; uid: string };
    },
    [url, body] as const,
  );
}

/** GET a path of the server in the page (the console's origin and session): its status and text. */
export async function getInPage(page: Page, path: string): Promise<{ status: number; text: string }> {
  return page.evaluate(async (p) => {
    const res = await fetch(p);
    return { status: res.status, text: await res.text() };
  }, path);
}

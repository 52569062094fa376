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

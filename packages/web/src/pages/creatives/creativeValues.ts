import { type MediaFileValue } from './creativePreview.js';

/**
 * The creative drawer's values and the API body. The drawer only sends the fields it shows (a display
 * creative sends no media files); the video duration the API keeps beside the media files is the
 * longest media file's, so that nobody types it twice. Only a video with media files sends its skip offset.
 */
export const NEW_MEDIA_FILE: MediaFileValue = { url: '', mime: 'video/mp4', bitrate: 0 };

export function creativeDefaults(): Record<string, unknown> {
  return {
    status: 1,
    advertiserId: null,
    format: 'video',
    videoSource: 'media',
    mediaFiles: [{ ...NEW_MEDIA_FILE }],
    vastUrl: '',
    duration: 0,
    skipAfter: 0,
    displayType: 'image',
    imageUrl: '',
    html: '',
    width: 0,
    height: 0,
    clickUrl: '',
    adomain: [],
    iabCategories: [],
    approval: 'pending',
  };
}

export function creativeToBody(values: Record<string, unknown>): Record<string, unknown> {
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  const body: Record<string, unknown> = {
    ...values,
    adomain: list(values.adomain),
    iabCategories: list(values.iabCategories),
  };
  if (values.format === 'video' && values.videoSource !== 'vast') {
    const files = (Array.isArray(values.mediaFiles) ? values.mediaFiles : []) as MediaFileValue[];
    body.mediaFiles = files.map((f) => ({ ...f, bitrate: f.bitrate ?? 0 }));
    body.duration = Math.max(0, ...files.map((f) => (typeof f.duration === 'number' ? f.duration : 0)));
    body.skipAfter = typeof values.skipAfter === 'number' ? values.skipAfter : 0;
  } else {
    // only our own video can be made skippable: the hidden field's value is not sent
    body.skipAfter = 0;
  }
  return body;
}

const n = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 0);

/** The list's size / duration column: `300×250`, `30 s · 1920×1080`, `15 s · VAST`. */
export function creativeSizeLabel(row: Record<string, unknown>): string {
  if (row.format === 'display') return n(row.width) && n(row.height) ? `${n(row.width)}×${n(row.height)}` : '';
  const seconds = n(row.duration) ? `${n(row.duration)} s` : '';
  if (row.videoSource === 'vast') return [seconds, 'VAST'].filter(Boolean).join(' · ');
  const first = (Array.isArray(row.mediaFiles) ? row.mediaFiles[0] : undefined) as MediaFileValue | undefined;
  const dims = first && n(first.width) && n(first.height) ? `${n(first.width)}×${n(first.height)}` : '';
  return [seconds, dims].filter(Boolean).join(' · ');
}

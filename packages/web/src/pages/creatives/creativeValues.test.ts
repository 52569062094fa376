import { describe, expect, it } from 'vitest';
import { CreativeInput } from '@adplane/shared';
import { creativeDefaults, creativeSizeLabel, creativeToBody } from './creativeValues.js';

const file = (duration: number, width = 1920, height = 1080) => ({
  url: `https://cdn.example.com/${width}.mp4`,
  mime: 'video/mp4',
  duration,
  width,
  height,
});

describe('creative body', () => {
  it('takes the video duration from the longest media file and fills a missing bitrate', () => {
    const body = creativeToBody({
      name: 'Spot',
      format: 'video',
      videoSource: 'media',
      mediaFiles: [file(30), { ...file(15, 1280, 720), bitrate: undefined }],
    });
    expect(body.duration).toBe(30);
    expect((body.mediaFiles as { bitrate: number }[]).map((f) => f.bitrate)).toEqual([0, 0]);
    expect(CreativeInput.safeParse(body).success).toBe(true);
  });

  it('keeps the typed duration of a VAST creative and sends unset domains and IAB categories as empty lists', () => {
    const body = creativeToBody({
      name: 'Wrapper',
      format: 'video',
      videoSource: 'vast',
      vastUrl: 'https://vast.example/tag',
      duration: 15,
      iabCategories: undefined,
    });
    expect(body.duration).toBe(15);
    expect(body.iabCategories).toEqual([]);
    expect(body.adomain).toEqual([]);
    expect(CreativeInput.safeParse(body).success).toBe(true);
  });

  it('sends the skip offset of a video with media files, shorter than its shortest file; none for a VAST or display creative', () => {
    const body = creativeToBody({
      name: 'Skippable',
      format: 'video',
      videoSource: 'media',
      mediaFiles: [file(30), file(15, 1280, 720)],
      skipAfter: 5,
    });
    expect(body.skipAfter).toBe(5);
    expect(CreativeInput.safeParse(body).success).toBe(true);
    const tooLate = CreativeInput.safeParse({ ...body, skipAfter: 15 });
    expect(tooLate.success).toBe(false);
    expect(tooLate.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'skipAfter: must be shorter than the ad (it lasts 15 s)',
    ]);
    expect(
      creativeToBody({
        name: 'Wrapper',
        format: 'video',
        videoSource: 'vast',
        vastUrl: 'https://vast.example/tag',
        skipAfter: 5,
      }).skipAfter,
    ).toBe(0);
    expect(creativeToBody({ name: 'Banner', format: 'display', skipAfter: 5 }).skipAfter).toBe(0);
  });

  it('starts a new creative as a pending video with one media file row to fill', () => {
    const d = creativeDefaults();
    expect(d).toMatchObject({ format: 'video', videoSource: 'media', approval: 'pending' });
    expect(d.mediaFiles).toHaveLength(1);
  });
});

describe('creativeSizeLabel', () => {
  it('reads size for display, duration and first rendition for video, VAST for wrappers', () => {
    expect(creativeSizeLabel({ format: 'display', width: 300, height: 250 })).toBe('300×250');
    expect(creativeSizeLabel({ format: 'video', videoSource: 'media', duration: 30, mediaFiles: [file(30)] })).toBe(
      '30 s · 1920×1080',
    );
    expect(creativeSizeLabel({ format: 'video', videoSource: 'vast', duration: 15 })).toBe('15 s · VAST');
    expect(creativeSizeLabel({ format: 'video', videoSource: 'vast', duration: 0 })).toBe('VAST');
    expect(creativeSizeLabel({ format: 'display', width: 0, height: 0 })).toBe('');
  });
});

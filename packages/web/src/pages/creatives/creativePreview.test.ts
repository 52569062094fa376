import { describe, expect, it } from 'vitest';
import { creativePreview, firstPlayableMediaFile, guessVideoMime } from './creativePreview.js';

const hls = {
  url: 'https://cdn.example.com/spot.m3u8',
  mime: 'application/x-mpegURL',
  duration: 30,
  width: 1920,
  height: 1080,
};
const mp4 = { url: 'https://cdn.example.com/spot-720p.mp4', mime: 'video/mp4', duration: 30, width: 1280, height: 720 };
const webm = { url: 'http://cdn.example.com/spot.webm', mime: 'video/webm', duration: 30, width: 640, height: 360 };

describe('firstPlayableMediaFile', () => {
  it('skips files a browser cannot play and answers the first mp4 or webm', () => {
    expect(firstPlayableMediaFile([hls, mp4, webm])?.url).toBe(mp4.url);
    expect(firstPlayableMediaFile([hls, webm, mp4])?.url).toBe(webm.url);
  });

  it('skips rows without an http(s) URL (a half-typed row)', () => {
    expect(
      firstPlayableMediaFile([{ url: '', mime: 'video/mp4' }, { url: 'cdn/x.mp4', mime: 'video/mp4' }, webm])?.url,
    ).toBe(webm.url);
    expect(firstPlayableMediaFile([null, undefined, mp4])?.url).toBe(mp4.url);
  });

  it('reads the type from the extension when the row has none', () => {
    expect(firstPlayableMediaFile([{ url: 'https://cdn.example.com/a.webm?v=2' }])?.mime).toBe('video/webm');
  });

  it('answers null when nothing plays', () => {
    expect(
      firstPlayableMediaFile([hls, { ...hls, url: 'https://cdn.example.com/a.3gp', mime: 'video/3gpp' }]),
    ).toBeNull();
    expect(firstPlayableMediaFile([])).toBeNull();
    expect(firstPlayableMediaFile(undefined)).toBeNull();
  });
});

describe('guessVideoMime', () => {
  it('maps common extensions, ignoring the query string', () => {
    expect(guessVideoMime('https://x.test/a.MP4')).toBe('video/mp4');
    expect(guessVideoMime('https://x.test/a.m3u8?token=1')).toBe('application/x-mpegURL');
    expect(guessVideoMime('https://x.test/manifest.mpd#t=1')).toBe('application/dash+xml');
    expect(guessVideoMime('https://x.test/a.ogv')).toBe('video/ogg');
    expect(guessVideoMime('https://x.test/video')).toBeUndefined();
  });
});

describe('creativePreview', () => {
  it('plays the first playable media file of a media creative', () => {
    expect(creativePreview({ format: 'video', videoSource: 'media', mediaFiles: [hls, mp4] })).toEqual({
      kind: 'video',
      src: mp4.url,
      mime: 'video/mp4',
      width: 1280,
      height: 720,
    });
  });

  it('lists the files when none plays in a browser', () => {
    expect(creativePreview({ format: 'video', videoSource: 'media', mediaFiles: [hls] })).toEqual({
      kind: 'unplayable',
      urls: [hls.url],
    });
  });

  it('links a third-party VAST URL instead of fetching it', () => {
    expect(
      creativePreview({ format: 'video', videoSource: 'vast', vastUrl: ' https://vast.example/v4?cb=1 ' }),
    ).toEqual({ kind: 'vast', url: 'https://vast.example/v4?cb=1' });
    expect(creativePreview({ format: 'video', videoSource: 'vast', vastUrl: '' }).kind).toBe('none');
  });

  it('shows a display image at its size, and HTML in a frame of its size (300x250 until set)', () => {
    expect(
      creativePreview({
        format: 'display',
        displayType: 'image',
        imageUrl: 'https://cdn.example.com/b.jpg',
        width: 300,
        height: 250,
      }),
    ).toEqual({
      kind: 'image',
      src: 'https://cdn.example.com/b.jpg',
      width: 300,
      height: 250,
    });
    expect(
      creativePreview({ format: 'display', displayType: 'html', html: '<b>hi</b>', width: 320, height: 50 }),
    ).toEqual({ kind: 'html', html: '<b>hi</b>', width: 320, height: 50 });
    expect(creativePreview({ format: 'display', displayType: 'html', html: '<b>hi</b>' })).toMatchObject({
      width: 300,
      height: 250,
    });
    expect(creativePreview({ format: 'display', displayType: 'image', imageUrl: 'javascript:alert(1)' }).kind).toBe(
      'none',
    );
  });
});

import { LinkOutlined } from '@ant-design/icons';
import { Alert, Button, Spin, Table, Tag, Tooltip, Typography } from 'antd';
import { useEffect, useReducer, useRef, useState } from 'react';
import { CreativePreview } from '../creatives/CreativePreview.js';
import {
  adFacts,
  iconPlacement,
  loadVast,
  type Playable,
  type SentEvent,
  TrackedEvents,
  TRACKER_EVENTS,
} from './vastPlayback.js';

/**
 * The answer played as a publisher's player would: an HTML5 <video> (or the display creative) driven
 * by @dailymotion/vast-client's VASTTracker, which fires impression, start, quartiles, complete and
 * click. The events list fills as each is sent, and marks each URL answered when the browser's
 * resource timing shows the response (HTTP status where the origin shares it).
 */
export function AdPlayer({ vast, label }: { vast: string; label: string }) {
  const [playable, setPlayable] = useState<Playable | null>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  // One list per answer: the parent keys this component by the VAST it plays.
  const [events] = useState(() => new TrackedEvents(rerender));
  const videoRef = useRef<HTMLVideoElement>(null);
  const impressed = useRef(false);
  const paused = useRef(false);

  useEffect(() => {
    let alive = true;
    impressed.current = false;
    setPlayable(null);
    const probe = document.createElement('video');
    void loadVast(vast, (mime) => probe.canPlayType(mime) !== '')
      .catch(
        (error: unknown): Playable => ({
          kind: 'none',
          message: `The ad could not be read: ${error instanceof Error ? error.message : String(error)}`,
        }),
      )
      .then((p) => alive && setPlayable(p));
    return () => {
      alive = false;
    };
  }, [vast]);

  // The pixels the library loads show up in resource timing once answered.
  useEffect(() => {
    if (typeof PerformanceObserver === 'undefined') return;
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceResourceTiming & { responseStatus?: number })[])
        events.answered(entry.name, entry.responseStatus);
    });
    observer.observe({ type: 'resource' });
    return () => observer.disconnect();
  }, [events]);

  useEffect(() => {
    if (!playable || playable.kind === 'none') return;
    const { tracker } = playable;
    const at = () => Math.round((videoRef.current?.currentTime ?? 0) * 10) / 10;
    const listeners = TRACKER_EVENTS.map((name) => {
      const on = (payload: { trackingURLTemplates?: unknown[] } | null) =>
        events.add(name, payload?.trackingURLTemplates ?? [], at());
      tracker.on(name, on);
      return () => tracker.off(name, on);
    });
    const clickTemplates = playable.kind === 'video' ? (playable.creative.videoClickTrackingURLTemplates ?? []) : [];
    const onClick = (url: string) => {
      events.add('click', [...clickTemplates, url], at());
      window.open(url, '_blank', 'noopener');
    };
    tracker.on('clickthrough', onClick);
    if (playable.kind !== 'video') impress(playable);
    return () => {
      listeners.forEach((off) => off());
      tracker.off('clickthrough', onClick);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- impress reads refs only
  }, [playable, events]);

  // A player starts the ad itself (muted, so browsers allow it) rather than trusting the autoplay attribute.
  const [blocked, setBlocked] = useState(false);
  function startPlayback(video: HTMLVideoElement) {
    if (impressed.current || !video.paused) return;
    video.muted = true;
    video.play().catch(() => setBlocked(true));
  }

  function impress(p: Exclude<Playable, { kind: 'none' }>) {
    if (impressed.current) return;
    impressed.current = true;
    events.add('impression', p.ad.impressionURLTemplates, 0);
    p.tracker.trackImpression();
  }

  if (!playable) return <Spin description="Reading the VAST answer…" />;
  if (playable.kind === 'none')
    return <Alert type="info" showIcon title="Nothing to play" description={playable.message} />;

  const tracker = playable.tracker;
  return (
    <div className="tag-test-player">
      <div className="tag-test-stage">
        {playable.kind === 'video' ? (
          <div className="tag-test-screen">
            <video
              ref={videoRef}
              src={playable.media.fileURL}
              data-testid="tag-test-video"
              controls
              muted
              autoPlay
              playsInline
              onLoadedMetadata={(e) => tracker.setDuration(e.currentTarget.duration)}
              onCanPlay={(e) => startPlayback(e.currentTarget)}
              onPlaying={() => impress(playable)}
              onTimeUpdate={(e) => tracker.setProgress(e.currentTarget.currentTime)}
              onPause={(e) => {
                // The end of the ad also pauses the element: that is 'complete', not a pause.
                if (e.currentTarget.ended || e.currentTarget.currentTime >= e.currentTarget.duration - 0.3) return;
                paused.current = true;
                tracker.setPaused(true);
              }}
              onPlay={() => {
                if (!paused.current) return;
                paused.current = false;
                tracker.setPaused(false);
              }}
              onVolumeChange={(e) => tracker.setMuted(e.currentTarget.muted)}
              onEnded={() => tracker.complete()}
              onError={() => {
                events.add('error', playable.ad.errorURLTemplates, 0);
                tracker.errorWithCode('405');
              }}
            />
            {(playable.creative.icons ?? [])
              .filter((icon) => icon.staticResource)
              .map((icon, i) => (
                <a
                  key={i}
                  className="tag-test-icon"
                  data-testid="tag-test-icon"
                  href={icon.iconClickThroughURLTemplate ?? undefined}
                  target="_blank"
                  rel="noopener noreferrer"
                  title={icon.program ?? 'icon'}
                  style={iconPlacement(icon)}
                >
                  <img
                    src={icon.staticResource!}
                    alt={icon.program ?? 'icon'}
                    width={icon.width || undefined}
                    height={icon.height || undefined}
                  />
                </a>
              ))}
          </div>
        ) : playable.kind === 'image' ? (
          <CreativePreview
            model={{ kind: 'image', src: playable.src, width: playable.width, height: playable.height }}
          />
        ) : (
          <CreativePreview
            model={{ kind: 'html', html: playable.html, width: playable.width, height: playable.height }}
          />
        )}
        <div className="tag-test-media">
          <Typography.Text strong>{label}</Typography.Text>
          {playable.title !== 'Ad' && <Typography.Text type="secondary">{playable.title}</Typography.Text>}
          <AdFacts facts={adFacts(playable.ad)} />
          {playable.kind === 'video' && (
            <Typography.Text type="secondary" className="tag-test-mono">
              {playable.media.mimeType} · {playable.media.width}×{playable.media.height} · {playable.media.fileURL}
            </Typography.Text>
          )}
          {blocked && (
            <Typography.Text type="warning">The browser did not start the video: press play.</Typography.Text>
          )}
          <Tooltip title="Fire the click trackers and open the click-through in a new tab">
            <Button size="small" icon={<LinkOutlined />} onClick={() => tracker.click()} data-testid="tag-test-click">
              Click the ad
            </Button>
          </Tooltip>
        </div>
      </div>
      <EventsTable events={events.list} />
    </div>
  );
}

/** What the ad carries beside its media (vastPlayback.ts adFacts), one tag each. */
function AdFacts({ facts }: { facts: readonly string[] }) {
  if (!facts.length) return null;
  return (
    <div className="tag-test-facts" data-testid="tag-test-facts">
      {facts.map((f) => (
        <Tag key={f}>{f}</Tag>
      ))}
    </div>
  );
}

function EventsTable({ events }: { events: readonly SentEvent[] }) {
  return (
    <Table<SentEvent>
      size="small"
      className="tag-test-events"
      data-testid="tag-test-events"
      rowKey="seq"
      pagination={false}
      dataSource={[...events]}
      locale={{ emptyText: 'No event sent yet: the impression fires when the ad starts playing' }}
      title={() => <Typography.Text strong>Events</Typography.Text>}
      columns={[
        { key: 'at', title: 'At', width: 60, align: 'right', render: (_, e) => `${e.at.toFixed(1)} s` },
        {
          key: 'name',
          title: 'Event',
          width: 120,
          render: (_, e) => <span data-testid={`tag-test-event-${e.name}`}>{e.name}</span>,
        },
        {
          key: 'server',
          title: 'Trackers',
          render: (_, e) =>
            e.urls.length === 0 ? (
              <Typography.Text type="secondary">no tracking URL in the VAST</Typography.Text>
            ) : (
              <div className="tag-test-urls">
                {e.urls.map((u) => (
                  <div key={u.url} className="tag-test-url">
                    {u.status === 'answered' ? (
                      <Tag color="success">{u.http ? `answered ${u.http}` : 'answered'}</Tag>
                    ) : (
                      <Tag color="processing">sent</Tag>
                    )}
                    <Tooltip title={u.url}>
                      <Typography.Text type="secondary" className="tag-test-mono" ellipsis>
                        {shortUrl(u.url)}
                      </Typography.Text>
                    </Tooltip>
                  </div>
                ))}
              </div>
            ),
        },
      ]}
    />
  );
}

/** host + path + the event parameter: what tells trackers apart at a glance. */
function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const e = u.searchParams.get('e');
    return `${u.host}${u.pathname}${e ? `?e=${e}` : ''}`;
  } catch {
    return url;
  }
}

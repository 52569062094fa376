import { type TagTestAnswer, type TagTestContext } from '@adplane/shared';
import { type Edge } from '../edge.js';
import { buildRequestContext, type ConnectionFacts, type RequestContext } from '../../request/context.js';
import { type RawQuery } from '../../request/macros.js';
import { type SnapChannel, type SnapTag, type Snapshot } from '../../snapshot/types.js';
import { decideVastAds } from '../../decision/adPod.js';
import { sampleUserAgent } from './sampleUserAgents.js';

/**
 * "Test this tag" on the edge: the real decision (live snapshot, real auction, real demand calls) for
 * a channel, or for one demand tag alone, in a context the person chose. The chosen country, state,
 * device, OS and browser replace what the address and user agent would say; the rest comes from the
 * caller's connection, as for a player's request. With `podMaxAds` (and `podMaxDuration`) it asks
 * for an ad break, as a CTV player's `pod_max_ads` and `pod_max_dur` do (decision/adPod.ts).
 */
export interface TestSubject {
  kind: 'channel' | 'tag';
  id: number;
  /** The stored name (a paused tag is not in the snapshot, but the trace still names it). */
  name: string;
  /** Why a tag the snapshot does not hold cannot be called (paused, archived). */
  idleReason: string;
}

/** How long a test waits for the snapshot to include a change just saved (it rebuilds within a second). */
const CATCH_UP_MS = 2000;

export class SubjectNotLoaded extends Error {}

function testContext(
  choice: TagTestContext,
  conn: ConnectionFacts,
  now: number,
  geoLookup: Parameters<typeof buildRequestContext>[3],
): RequestContext {
  const raw: RawQuery = {
    w: choice.width?.toString(),
    h: choice.height?.toString(),
    app_bundle: choice.appBundle,
    domain: choice.domain,
    ip: choice.ip,
    ua: choice.ua ?? (sampleUserAgent(choice.os, choice.device) || undefined),
    pod_max_ads: choice.podMaxAds?.toString(),
    pod_max_dur: choice.podMaxDuration?.toString(),
  };
  const ctx = buildRequestContext(raw, conn, now, geoLookup);
  const country = choice.country ?? (choice.usState ? 'US' : undefined);
  const geo = country
    ? { country, region: choice.usState ?? '', usState: country === 'US' ? (choice.usState ?? '') : '' }
    : ctx.geo;
  const platform = {
    device: choice.device ?? ctx.platform.device,
    os: choice.os ?? ctx.platform.os,
    browser: choice.browser ?? ctx.platform.browser,
    tvFamily: ctx.platform.tvFamily,
  };
  return { ...ctx, geo, platform };
}

/**
 * A channel of the tag's own, so that the tag is tested alone: the tenant's, auction mode, VAST 4.2,
 * no floor, no targeting of its own, no publisher payout, the tag's own timeout as the deadline.
 * A paused or archived tag stays in it as idle, so the trace says why it was not called.
 */
function channelForTag(
  tag: SnapTag | null,
  tagId: number,
  name: string,
  tenantId: number,
  idleReason: string,
): SnapChannel {
  return {
    id: 0,
    uid: `tag-test-${tagId}`,
    tenantId,
    subpublisherId: 0,
    name: `Test of demand tag ${name}`,
    serving: true,
    integration: 'VAST',
    environment: 'web',
    format: 'video',
    vastVersion: '4.2',
    floorCpm: 0,
    payout: { type: 'revshare', percent: 0 },
    demandMode: 'auction',
    auctionPrice: 'first',
    timeoutMs: tag?.timeoutMs ?? 1000,
    targeting: null,
    demand: tag ? [{ tag, priority: 1 }] : [],
    idleTags: tag ? [] : [{ id: tagId, reason: idleReason }],
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * The snapshot, rebuilt first when the config moved since it was compiled (a tag attached a second
 * ago is tested attached), waiting at most CATCH_UP_MS; a slow rebuild leaves the current one.
 */
async function freshSnapshot(edge: Edge, configVersion: () => Promise<number>): Promise<Snapshot | null> {
  const version = await configVersion();
  const current = edge.snapshots.current;
  if (!current || current.version !== version) await Promise.race([edge.snapshots.rebuild(), sleep(CATCH_UP_MS)]);
  return edge.snapshots.current;
}

/** Run the test decision; throws SubjectNotLoaded when the edge has not loaded the subject even after catching up. */
export async function runTestDecision(
  edge: Edge,
  configVersion: () => Promise<number>,
  subject: TestSubject,
  tenantId: number,
  choice: TagTestContext,
  conn: ConnectionFacts,
): Promise<TagTestAnswer> {
  const deps = edge.deps;
  if (!deps) throw new SubjectNotLoaded('The edge of this process is not running');
  const snapshot = await freshSnapshot(edge, configVersion);
  if (!snapshot) throw new SubjectNotLoaded('The edge is still loading its snapshot');
  const ctx = testContext(choice, conn, deps.clock.now(), deps.geo);

  if (subject.kind === 'channel') {
    const channel = snapshot.channels.get(subject.id);
    if (!channel || channel.tenantId !== tenantId)
      throw new SubjectNotLoaded(`Channel ${subject.id} is not served by the edge (it has no tag URL yet)`);
    const { status, xml, trace } = await decideVastAds(deps, channel.uid, ctx, { test: true });
    return {
      tested: { kind: 'channel', id: channel.id, name: channel.name, format: channel.format },
      status,
      vast: xml,
      trace,
    };
  }

  const tag = snapshot.tags.get(subject.id) ?? null;
  if (tag && tag.tenantId !== tenantId)
    throw new SubjectNotLoaded(`Demand tag ${subject.id} is not served by the edge`);
  const name = tag?.name ?? subject.name;
  const channel = channelForTag(tag, subject.id, name, tenantId, subject.idleReason);
  // The tag alone: the tenant's campaigns are not asked (they would compete on any channel of the tenant).
  const tagOnly = { ...deps, sources: deps.sources.filter((s) => s.name !== 'campaigns') };
  const { status, xml, trace } = await decideVastAds(tagOnly, channel.uid, ctx, { channel, test: true });
  return { tested: { kind: 'tag', id: subject.id, name, format: 'video' }, status, vast: xml, trace };
}

import { systemClock } from '../clock.js';
import { RESOURCES, vastTagPath } from '@adplane/shared';
import { type Actor, createOne } from '../resources/entityService.js';
import { type Settings } from '../settings.js';
import { type EntityKind } from './entityTables.js';
import { type SeedStep } from './seedStep.js';

/**
 * What makes the demo serve a real ad offline, for the demo tenant (Northwind Media):
 * - a campaign whose creative is the short video adplane itself serves (/media/demo-ad.mp4);
 * - a VAST demand tag answered by adplane's local demo demand endpoint (/demo/demand/vast);
 * - "Demo player - auction" (VAST 4.2, auction) and "Demo player - waterfall" (VAST 3.0, priority).
 * The channels only take the demo creative (a creative-list targeting), so the demo's other
 * campaigns, whose media live on made-up hosts, never win there. The campaign skips small players
 * (under 400 px), so `w=300` shows the demand tag filling instead.
 */
export const DEMO_VIDEO_PATH = '/media/demo-ad.mp4';
export const DEMO_DEMAND_PATH = '/demo/demand/vast';

const day = (days: number) => new Date(systemClock.now() + days * 86_400_000).toISOString().slice(0, 10);

export const seedEdgeDemo: SeedStep = async (ctx) => {
  // The seed is handed the program's settings; only the public host is read here, for absolute URLs.
  const host = ((ctx.settings as Partial<Settings>).publicHost ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const demand = ctx.users.demand;
  if (!demand) return;
  const as: Actor = { user: demand, adminId: null };
  const create = async (kind: EntityKind, body: Record<string, unknown>) =>
    (await createOne(ctx.store, RESOURCES[kind], as, body)).id;

  const creative = await create('creatives', {
    name: 'adplane demo spot (6 s)',
    format: 'video',
    videoSource: 'media',
    approval: 'approved',
    mediaFiles: [
      { url: `${host}${DEMO_VIDEO_PATH}`, mime: 'video/mp4', duration: 6, width: 320, height: 180, bitrate: 150 },
    ],
    clickUrl: `${host}/`,
    adomain: ['adplane.test'],
  });
  const onlyDemo = await create('crelists', { name: 'Demo creatives only', items: [String(creative)] });
  const demoTargeting = await create('targetings', {
    name: 'Demo players: demo creatives only',
    rules: { creLists: { mode: 'include', ids: [onlyDemo] } },
  });
  const notSmall = await create('targetings', {
    name: 'Demo spot: medium players and up',
    rules: { playerSizes: ['medium', 'large', 'xlarge'] },
  });
  await create('campaigns', {
    name: 'Demo spot - always on',
    startDate: day(-1),
    bidCpm: 6_000_000,
    channelScope: 'all',
    creativeIds: [creative],
    targetingId: notSmall,
  });
  const tag = await create('tags', {
    name: 'Local demo demand (VAST)',
    integration: 'VAST',
    vastUrl: `${host}${DEMO_DEMAND_PATH}?price=4.50&w={{width}}&h={{height}}&cb={{cachebuster}}`,
    price: { type: 'revshare', percent: 80 },
    timeoutMs: 1000,
  });
  const channel = {
    environment: 'web',
    format: 'video',
    integration: 'VAST',
    targetingId: demoTargeting,
    payout: { type: 'revshare', percent: 70 },
    demand: [{ tagId: tag, priority: 1 }],
  };
  const auction = await createOne(ctx.store, RESOURCES.channels, as, {
    ...channel,
    name: 'Demo player - auction',
    demandMode: 'auction',
    vastVersion: '4.2',
    timeoutMs: 1500,
  });
  const waterfall = await createOne(ctx.store, RESOURCES.channels, as, {
    ...channel,
    name: 'Demo player - waterfall',
    demandMode: 'priority',
    vastVersion: '3.0',
    timeoutMs: 1500,
  });
  ctx.tell('The demo channels serve at once (README: "Serve an ad"); paste a tag into a VAST player, or:');
  for (const c of [auction, waterfall])
    ctx.tell(`  ${c.name.padEnd(24)} curl '${host}${vastTagPath(String(c.uid))}?w=640&h=360&ip=8.8.8.8'`);
};

import { systemClock } from '../clock.js';
import { RESOURCES, toMicros } from '@adplane/shared';
import { accountDto } from '../resources/accountService.js';
import { type Actor, createOne } from '../resources/entityService.js';
import { recordActivity } from './activity.js';
import { type EntityKind } from './entityTables.js';
import { type SeedContext, type SeedStep } from './seedStep.js';
import { createUser, type User } from './users.js';

/**
 * The demo workspace's inventory: what a new user of each role finds in the console's lists.
 *
 * Every row goes through the resource service (`createOne`) as the user who would create it in the
 * console, inside the seed's transaction: the kind's zod schema, its reference-data checks (IAB ids,
 * countries, partner parameters), the tenant checks of every reference and the activity log all apply,
 * and a seed that fails leaves nothing behind.
 *
 * Host names of URLs the edge may call (VAST tags, OpenRTB endpoints, pixels) end in `.test`, a
 * reserved top-level domain, so that a demo never sends traffic to a real company.
 */

const usd = toMicros;

/** A date `days` from today (UTC), so that the demo's campaigns and deals are always in flight. */
const day = (days: number) => new Date(systemClock.now() + days * 86_400_000).toISOString().slice(0, 10);

const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];

type Ids = Record<string, number>;

function creator(ctx: SeedContext) {
  return async (actor: Actor, kind: EntityKind, body: Record<string, unknown>): Promise<number> => {
    const row = await createOne(ctx.store, RESOURCES[kind], actor, body);
    return row.id;
  };
}

/**
 * A subpublisher or advertiser of the tenant, signing in with the demo password like the other demo
 * users. The body is validated by the kind's schema as the API would; the password is set apart
 * because the demo password (default `demo`) is shorter than the console's 8-character rule.
 */
async function addAccount(
  ctx: SeedContext,
  owner: User,
  kind: 'subs' | 'advs',
  body: Record<string, unknown>,
): Promise<User> {
  const def = RESOURCES[kind];
  const v = def.schema.parse(body) as {
    name: string;
    username: string;
    email: string;
    status: number;
    companyName: string;
    domain: string;
    sellersJson?: unknown;
  };
  const user = await createUser(ctx.db, {
    type: kind === 'subs' ? 'sub' : 'adv',
    username: v.username,
    email: v.email || null,
    passwordHash: await ctx.passwordHash(ctx.settings.demoPassword),
    name: v.name,
    domain: v.domain || null,
    tenantId: owner.id,
    status: v.status,
    profile: { companyName: v.companyName },
    sellersJson: kind === 'subs' ? (v.sellersJson as User['sellersJson']) : null,
  });
  await recordActivity(ctx.db, {
    tenantId: owner.id,
    userId: owner.id,
    adminId: null,
    kind,
    entityId: user.id,
    action: 'create',
    before: null,
    after: accountDto(def, { ...user, archived: false }),
  });
  ctx.users[user.username] = user;
  return user;
}

/** Allow and block lists, then the targetings that use them. */
async function northwindTargeting(ctx: SeedContext, as: Actor): Promise<Ids> {
  const create = creator(ctx);
  const ctvApps = await create(as, 'applists', {
    name: 'CTV premium apps - Roku & Fire TV',
    items: [
      '151908', // Roku channel store ids
      '2285',
      '41468',
      '74519',
      '13535',
      'B075NTHVJW', // Amazon Fire TV ASINs
      'B00KDSGIPK',
      'com.tubitv.ott',
      'tv.pluto.android',
    ],
  });
  const mobileApps = await create(as, 'applists', {
    name: 'Mobile sports & news apps - allow-list',
    items: [
      'com.espn.score_center',
      'id317469184',
      'com.foxsports.android',
      'id571800810',
      'com.bleacherreport.android.teamstream',
      'id418075935',
      'com.theathletic',
      'id1135216317',
      'com.cnn.mobile.android.phone',
      'id331786748',
    ],
  });
  const premiumPublishers = await create(as, 'publists', {
    name: 'Premium news publishers',
    items: [
      'nytimes.com',
      'washingtonpost.com',
      'wsj.com',
      'theguardian.com',
      'reuters.com',
      'apnews.com',
      'bbc.co.uk',
      'latimes.com',
    ],
  });
  const officeNetworks = await create(as, 'iplists', {
    name: 'Office and QA networks - block',
    items: ['198.51.100.0/24', '203.0.113.7', '2001:db8:4e57::/48'],
  });
  const gamblingAdvertisers = await create(as, 'crelists', {
    name: 'Gambling advertisers - block',
    items: [
      'bet365.com',
      'draftkings.com',
      'fanduel.com',
      'williamhill.com',
      'paddypower.com',
      'pokerstars.com',
      'betmgm.com',
      'caesars.com',
    ],
  });

  const usCtvPrimeTime = await create(as, 'targetings', {
    name: 'US CTV prime time',
    rules: {
      countries: { mode: 'include', values: ['US'] },
      regions: { mode: 'include', values: ['NAM'] },
      devices: { mode: 'include', values: ['smarttv'] },
      tvFamilies: { mode: 'include', values: ['roku', 'firetv', 'tizen', 'webos', 'appletv', 'androidtv'] },
      appLists: { mode: 'include', ids: [ctvApps] },
      playerSizes: ['large', 'xlarge'],
      dayParting: { enabled: true, timezone: -5, days: ALL_DAYS, hours: [19, 20, 21, 22] },
    },
  });
  const euSports = await create(as, 'targetings', {
    name: 'EU sports, no gambling',
    rules: {
      countries: { mode: 'include', values: ['DE', 'FR', 'ES', 'IT', 'NL', 'BE', 'AT', 'IE', 'SE', 'DK', 'PL', 'PT'] },
      regions: { mode: 'include', values: ['EMEA'] },
      iabCategories: {
        mode: 'include',
        values: ['IAB17', 'IAB17-44', 'IAB17-12', 'IAB17-26', 'IAB17-29', 'IAB17-40', 'IAB17-9', 'IAB17-1'],
      },
      creLists: { mode: 'exclude', ids: [gamblingAdvertisers] },
    },
  });
  const mobileAllowList = await create(as, 'targetings', {
    name: 'Mobile apps allow-list',
    rules: {
      countries: { mode: 'include', values: ['US', 'CA', 'GB'] },
      devices: { mode: 'include', values: ['mobile'] },
      os: { mode: 'include', values: ['ios', 'android'] },
      iabCategories: { mode: 'exclude', values: ['IAB25', 'IAB26', 'IAB9-7', 'IAB17-16'] },
      appLists: { mode: 'include', ids: [mobileApps] },
      playerSizes: ['small', 'medium'],
    },
  });
  const premiumNewsWeb = await create(as, 'targetings', {
    name: 'US premium news - desktop web',
    status: 0,
    rules: {
      countries: { mode: 'include', values: ['US'] },
      usStates: { mode: 'exclude', values: ['AK', 'HI'] },
      devices: { mode: 'include', values: ['desktop'] },
      browsers: { mode: 'include', values: ['chrome', 'safari', 'edge', 'firefox'] },
      pubLists: { mode: 'include', ids: [premiumPublishers] },
      // the tenant's own staff and QA traffic is never sold
      ipLists: { mode: 'exclude', ids: [officeNetworks] },
      dayParting: {
        enabled: true,
        timezone: -5,
        days: [0, 1, 2, 3, 4],
        hours: [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
      },
    },
  });
  return { usCtvPrimeTime, euSports, mobileAllowList, premiumNewsWeb, gamblingAdvertisers };
}

/** SSP side: pixels, demand tags and the channels sold to the tenant's publishers. */
async function northwindSupply(
  ctx: SeedContext,
  as: Actor,
  t: Ids,
  subs: Record<string, User>,
  adv: User,
): Promise<void> {
  const create = creator(ctx);
  const pixalate = await create(as, 'ivts', {
    name: 'Pixalate pre-bid IVT check',
    vendor: 'Pixalate',
    stage: 'prebid',
    samplePercent: 100,
    urlTemplate:
      'https://prebid.pixalate.test/api/v2/ivt?ip={{ip}}&ua={{user_agent}}&app={{app_bundle}}&dom={{domain}}&ifa={{device_id}}&cb={{cachebuster}}',
  });
  const human = await create(as, 'ivts', {
    name: 'HUMAN post-bid scan (10%)',
    vendor: 'HUMAN',
    stage: 'postbid',
    samplePercent: 10,
    urlTemplate:
      'https://b.human-pixel.test/2/nw1/pixel.gif?ch={{channel_id}}&tag={{tag_id}}&ip={{ip}}&ua={{user_agent}}&geo={{country}}&imp={{impression_id}}&cb={{cachebuster}}',
  });

  const beaconVast = await create(as, 'tags', {
    name: 'Beacon DSP - US CTV preroll - VAST 4',
    integration: 'VAST',
    vastUrl:
      'https://vast.beacondsp.test/v4/vast?sid=nw1-ctv&w={{width}}&h={{height}}&ip={{ip}}&ua={{user_agent}}&app_bundle={{app_bundle}}&app_name={{app_name}}&ifa={{device_id}}&us_privacy={{us_privacy}}&cb={{cachebuster}}',
    price: { type: 'cpm', cpm: usd(14) },
    floorCpm: usd(9),
    timeoutMs: 1500,
    qpsLimit: 800,
    dailyImpCap: 250_000,
    priority: 2,
    targetingId: t.usCtvPrimeTime,
  });
  const crestlineRtb = await create(as, 'tags', {
    name: 'Crestline Exchange - OpenRTB 2.6 - video',
    integration: 'RTB',
    endpoint: 'https://bid.crestline.test/openrtb2/auction?sid=nw1&fmt=video',
    price: { type: 'revshare', percent: 82 },
    floorCpm: usd(4.5),
    timeoutMs: 350,
    qpsLimit: 2000,
    priority: 3,
  });
  const appnexus = await create(as, 'tags', {
    name: 'AppNexus (Xandr) - web outstream - Prebid',
    integration: 'PreBid',
    partner: 'appnexusP',
    partnerParams: { placement_id: 27412356, member: '9325', position: 'above', use_pmt_rule: false },
    price: { type: 'revshare', percent: 90 },
    floorCpm: usd(2),
    timeoutMs: 800,
    priority: 4,
  });
  const pubmatic = await create(as, 'tags', {
    name: 'PubMatic - in-app video - Prebid',
    integration: 'PreBid',
    partner: 'pubmaticP',
    partnerParams: {
      publisherId: '161243',
      adSlot: 'nw1_app_video@640x480',
      kadfloor: '3.00',
      pmzoneid: 'sports,news',
    },
    price: { type: 'revshare', percent: 88 },
    floorCpm: usd(3),
    timeoutMs: 900,
    qpsLimit: 1500,
    priority: 4,
    targetingId: t.mobileAllowList,
  });
  const blueFinDirect = await create(as, 'tags', {
    name: 'Blue Fin Foods - direct - CM360 VAST',
    integration: 'VAST',
    vastUrl:
      'https://ad.doubleclick-cm360.test/ddm/pfadx/N5813.2417NORTHWIND/B31055718.392114;sz=0x0;dcmt=text/xml;dc_sdk_apis=[APIFRAMEWORKS];ord={{cachebuster}}',
    price: { type: 'cpm', cpm: usd(22) },
    timeoutMs: 1000,
    dailyImpCap: 40_000,
    priority: 1,
    advertiserId: adv.id,
  });

  await create(as, 'channels', {
    name: 'Harbor Video - Roku CTV preroll (VAST)',
    subpublisherId: subs.sub.id,
    integration: 'VAST',
    environment: 'ctv',
    format: 'video',
    domain: 'harborvideo.test',
    floorCpm: usd(8),
    payout: { type: 'revshare', percent: 65 },
    targetingId: t.usCtvPrimeTime,
    demandMode: 'priority',
    demand: [
      { tagId: blueFinDirect, priority: 1 },
      { tagId: beaconVast, priority: 2 },
      { tagId: crestlineRtb, priority: 3 },
    ],
    ivtIds: [pixalate, human],
    blockIVT: true,
  });
  await create(as, 'channels', {
    name: 'Harbor Video - Fire TV & Tizen midroll (VAST)',
    subpublisherId: subs.sub.id,
    integration: 'VAST',
    environment: 'ctv',
    format: 'video',
    domain: 'harborvideo.test',
    floorCpm: usd(6),
    payout: { type: 'cpm', cpm: usd(4.5) },
    demandMode: 'auction',
    demand: [
      { tagId: beaconVast, priority: 1 },
      { tagId: crestlineRtb, priority: 2 },
    ],
    ivtIds: [human],
  });
  const lakesideApp = await create(as, 'channels', {
    name: 'Lakeside Streaming - in-app video (RTB)',
    subpublisherId: subs.lakeside.id,
    integration: 'RTB',
    environment: 'app',
    format: 'video',
    domain: 'lakesidestreaming.test',
    floorCpm: usd(3.5),
    payout: { type: 'revshare', percent: 60 },
    targetingId: t.mobileAllowList,
    demandMode: 'auction',
    demand: [
      { tagId: crestlineRtb, priority: 1 },
      { tagId: pubmatic, priority: 2 },
    ],
    ivtIds: [pixalate],
    blockIVT: true,
  });
  // the in-app supply sold to one buyer as a deal on the Crestline bid requests
  await create(as, 'supplydeals', {
    name: 'Lakeside in-app video - Blue Fin PMP',
    dealId: 'NW-LS-APP-2026-014',
    floorCpm: usd(9),
    auctionType: 1,
    buyerSeats: ['ttd-bluefin-4471'],
    advertiserDomains: ['bluefinfoods.test'],
    channelIds: [lakesideApp],
    tagIds: [crestlineRtb],
    startDate: day(-7),
    endDate: day(90),
  });
  await create(as, 'channels', {
    name: 'Pinecrest Sports EU - web outstream (PreBid)',
    subpublisherId: subs.pinecrest.id,
    integration: 'PreBid',
    environment: 'web',
    format: 'video',
    domain: 'pinecrestsports.test',
    floorCpm: usd(2.5),
    payout: { type: 'revshare', percent: 70 },
    targetingId: t.euSports,
    demandMode: 'auction',
    demand: [
      { tagId: appnexus, priority: 1 },
      { tagId: pubmatic, priority: 1 },
    ],
  });
  await create(as, 'channels', {
    name: 'Run of network - web display 300x250 (PreBid)',
    integration: 'PreBid',
    environment: 'web',
    format: 'display',
    domain: 'northwindmedia.test',
    floorCpm: usd(0.8),
    payout: { type: 'cpm', cpm: usd(0.5) },
    demandMode: 'auction',
    demand: [{ tagId: appnexus, priority: 1 }],
    status: 0,
  });
}

/** DSP side: where the tenant buys (suppliers, exchanges, deals) and what (creatives, campaigns). */
async function northwindDemand(ctx: SeedContext, as: Actor, t: Ids, advs: Record<string, User>): Promise<void> {
  const create = creator(ctx);
  const tidewater = await create(as, 'sups', {
    name: 'Tidewater SSP - CTV supply',
    qpsLimit: 3000,
    marginPercent: 22,
    formats: ['video'],
    targetingId: t.usCtvPrimeTime,
  });
  const granite = await create(as, 'sups', {
    name: 'Granite Ad Network - in-app',
    qpsLimit: 1500,
    marginPercent: 25,
    formats: ['video', 'display'],
  });
  const lakeside = await create(as, 'sups', {
    name: 'Lakeside Streaming - direct OpenRTB',
    qpsLimit: 500,
    marginPercent: 15,
    formats: ['video'],
  });

  const crestline = await create(as, 'adexchanges', {
    name: 'Crestline Exchange - OpenRTB 2.6',
    endpoint: 'https://bid.crestline.test/openrtb2/nw1',
    tmaxMs: 250,
    qpsLimit: 2000,
    seat: 'nw-1187',
    marginPercent: 15,
  });
  const meridian = await create(as, 'adexchanges', {
    name: 'Meridian Ad Exchange - CTV',
    endpoint: 'https://rtb.meridianx.test/bid/v2?pid=northwind',
    tmaxMs: 300,
    qpsLimit: 1000,
    seat: 'northwind',
    marginPercent: 18,
    targetingId: t.usCtvPrimeTime,
  });

  const blueFinPmp = await create(as, 'deals', {
    name: 'Blue Fin Foods - CTV PMP',
    dealId: 'NW-BF-CTV-2026-001',
    floorCpm: usd(18),
    auctionType: 1,
    buyerSeats: ['ttd-bluefin-4471'],
    supplierIds: [tidewater],
    startDate: day(-30),
    endDate: day(60),
  });
  const sportsFixed = await create(as, 'deals', {
    name: 'Sports premium - fixed price',
    dealId: 'NW-SPORTS-FX-007',
    floorCpm: usd(25),
    auctionType: 3,
    buyerSeats: ['dv360-summit-88', 'amzn-crescent-12'],
    supplierIds: [granite, lakeside],
    startDate: day(-14),
    endDate: day(45),
  });

  const salmon = await create(as, 'creatives', {
    name: 'Blue Fin Foods - Wild Salmon 30s (CTV)',
    advertiserId: advs.adv.id,
    format: 'video',
    videoSource: 'media',
    duration: 30,
    mediaFiles: [
      {
        url: 'https://cdn.bluefin.test/video/wild-salmon-30s-1080p.mp4',
        mime: 'video/mp4',
        duration: 30,
        width: 1920,
        height: 1080,
        bitrate: 6000,
      },
      {
        url: 'https://cdn.bluefin.test/video/wild-salmon-30s-720p.mp4',
        mime: 'video/mp4',
        duration: 30,
        width: 1280,
        height: 720,
        bitrate: 2500,
      },
      {
        url: 'https://cdn.bluefin.test/video/wild-salmon-30s.m3u8',
        mime: 'application/x-mpegURL',
        duration: 30,
        width: 1920,
        height: 1080,
      },
    ],
    clickUrl: 'https://bluefin.test/wild-salmon?utm_source=northwind&utm_medium=ctv',
    adomain: ['bluefin.test'],
    iabCategories: ['IAB8'],
    approval: 'approved',
  });
  const trail = await create(as, 'creatives', {
    name: 'Summit Outdoor - Trail Season 15s (VAST wrapper)',
    advertiserId: advs.summit.id,
    format: 'video',
    videoSource: 'vast',
    vastUrl: 'https://vast.summit-adserver.test/v4/creative/88213?cb={{cachebuster}}',
    duration: 15,
    clickUrl: 'https://summitoutdoor.test/trail-season',
    adomain: ['summitoutdoor.test'],
    iabCategories: ['IAB17-8'],
    approval: 'approved',
  });
  const springBanner = await create(as, 'creatives', {
    name: 'Crescent Auto - Spring Sales Event 300x250',
    advertiserId: advs.crescent.id,
    format: 'display',
    displayType: 'image',
    imageUrl: 'https://cdn.crescentauto.test/banners/spring-sales-300x250.jpg',
    width: 300,
    height: 250,
    clickUrl: 'https://crescentauto.test/offers/spring',
    adomain: ['crescentauto.test'],
    iabCategories: ['IAB2'],
    approval: 'pending',
  });
  const dealerLocator = await create(as, 'creatives', {
    name: 'Crescent Auto - Dealer Locator 320x50 (HTML5)',
    advertiserId: advs.crescent.id,
    format: 'display',
    displayType: 'html',
    html: '<a href="https://crescentauto.test/dealers" target="_blank" rel="noopener"><div style="width:320px;height:50px;background:#0b3d91;color:#fff;font:bold 14px/50px sans-serif;text-align:center">Find your nearest Crescent Auto dealer</div></a>',
    width: 320,
    height: 50,
    clickUrl: 'https://crescentauto.test/dealers',
    adomain: ['crescentauto.test'],
    iabCategories: ['IAB2'],
    approval: 'approved',
  });

  await create(as, 'campaigns', {
    name: 'Blue Fin Foods - Wild Salmon CTV flight',
    advertiserId: advs.adv.id,
    startDate: day(-30),
    endDate: day(60),
    totalBudget: usd(120_000),
    dailyBudget: usd(1_500),
    pacing: 'even',
    bidCpm: usd(18),
    channelScope: 'all',
    frequencyCap: { count: 3, periodHours: 24 },
    targetingId: t.usCtvPrimeTime,
    creativeIds: [salmon],
    dealIds: [blueFinPmp],
    supplierIds: [tidewater],
    adExchangeIds: [meridian],
  });
  await create(as, 'campaigns', {
    name: 'Summit Outdoor - Trail Season video (EU)',
    advertiserId: advs.summit.id,
    startDate: day(-7),
    endDate: day(30),
    totalBudget: usd(40_000),
    dailyBudget: usd(1_200),
    pacing: 'asap',
    bidCpm: usd(11),
    channelScope: 'all',
    frequencyCap: { count: 5, periodHours: 168 },
    targetingId: t.euSports,
    creativeIds: [trail],
    dealIds: [sportsFixed],
    supplierIds: [granite, lakeside],
    adExchangeIds: [crestline],
  });
  await create(as, 'campaigns', {
    name: 'Crescent Auto - Spring Sales Event display',
    advertiserId: advs.crescent.id,
    status: 0,
    startDate: day(7),
    endDate: day(37),
    totalBudget: usd(25_000),
    dailyBudget: usd(900),
    pacing: 'even',
    bidCpm: usd(4.25),
    channelScope: 'all',
    targetingId: t.mobileAllowList,
    creativeIds: [springBanner, dealerLocator],
    adExchangeIds: [crestline, meridian],
  });
}

async function seedNorthwindInventory(ctx: SeedContext): Promise<void> {
  const demand = ctx.users.demand;
  const as: Actor = { user: demand, adminId: null };

  const lakeside = await addAccount(ctx, demand, 'subs', {
    name: 'Lakeside Streaming',
    username: 'lakeside',
    email: 'adops@lakesidestreaming.test',
    companyName: 'Lakeside Streaming Inc.',
    domain: 'lakesidestreaming.test',
    sellersJson: { type: 'PUBLISHER', name: 'Lakeside Streaming', id: 'nw1-sub-2', status: 1, confidential: 0 },
  });
  const pinecrest = await addAccount(ctx, demand, 'subs', {
    name: 'Pinecrest Sports Network',
    username: 'pinecrest',
    email: 'yield@pinecrestsports.test',
    companyName: 'Pinecrest Sports Network GmbH',
    domain: 'pinecrestsports.test',
    sellersJson: {
      type: 'INTERMEDIARY',
      name: 'Pinecrest Sports Network',
      id: 'nw1-sub-3',
      status: 1,
      confidential: 0,
    },
  });
  const summit = await addAccount(ctx, demand, 'advs', {
    name: 'Summit Outdoor Co.',
    username: 'summit',
    email: 'media@summitoutdoor.test',
    companyName: 'Summit Outdoor Co.',
    domain: 'summitoutdoor.test',
  });
  const crescent = await addAccount(ctx, demand, 'advs', {
    name: 'Crescent Auto Group',
    username: 'crescent',
    email: 'marketing@crescentauto.test',
    companyName: 'Crescent Auto Group LLC',
    domain: 'crescentauto.test',
  });

  const targeting = await northwindTargeting(ctx, as);
  await northwindSupply(ctx, as, targeting, { sub: ctx.users.sub, lakeside, pinecrest }, ctx.users.adv);
  await northwindDemand(ctx, as, targeting, { adv: ctx.users.adv, summit, crescent });
}

/** A little of Acme's own inventory, so that tenant isolation shows in every list. */
async function seedAcmeInventory(ctx: SeedContext): Promise<void> {
  const create = creator(ctx);
  const as: Actor = { user: ctx.users.acme, adminId: null };
  const northAmericaTv = await create(as, 'targetings', {
    name: 'US + Canada smart TV',
    rules: { countries: { mode: 'include', values: ['US', 'CA'] }, devices: { mode: 'include', values: ['smarttv'] } },
  });
  const vast = await create(as, 'tags', {
    name: 'Beacon DSP - Acme FAST channels - VAST',
    integration: 'VAST',
    vastUrl:
      'https://vast.beacondsp.test/v4/vast?sid=ac1-fast&w={{width}}&h={{height}}&ip={{ip}}&ua={{user_agent}}&cb={{cachebuster}}',
    price: { type: 'cpm', cpm: usd(12) },
    floorCpm: usd(7),
    timeoutMs: 1200,
    priority: 1,
    targetingId: northAmericaTv,
  });
  const rtb = await create(as, 'tags', {
    name: 'Tidewater RTB - Acme in-app',
    integration: 'RTB',
    endpoint: 'https://rtb.tidewater.test/openrtb2?pub=acme',
    price: { type: 'revshare', percent: 80 },
    floorCpm: usd(2.5),
    timeoutMs: 300,
    priority: 2,
  });
  await create(as, 'channels', {
    name: 'Acme Video - Samsung TV Plus FAST (VAST)',
    integration: 'VAST',
    environment: 'ctv',
    format: 'video',
    domain: 'acmevideo.test',
    floorCpm: usd(7),
    payout: { type: 'revshare', percent: 70 },
    targetingId: northAmericaTv,
    demandMode: 'priority',
    demand: [
      { tagId: vast, priority: 1 },
      { tagId: rtb, priority: 2 },
    ],
  });
  await create(as, 'channels', {
    name: 'Acme Video - Android app preroll (RTB)',
    integration: 'RTB',
    environment: 'app',
    format: 'video',
    domain: 'acmevideo.test',
    floorCpm: usd(2.5),
    payout: { type: 'cpm', cpm: usd(1.75) },
    demand: [{ tagId: rtb, priority: 1 }],
  });
}

/** The SDK user's apps: their uids are the app keys a developer pastes into the SDK. */
async function seedSdkApps(ctx: SeedContext): Promise<void> {
  const create = creator(ctx);
  const as: Actor = { user: ctx.users.sdk, adminId: null };
  await create(as, 'sdkapps', {
    name: 'Harbor Video for Android TV',
    bundle: 'com.harborvideo.androidtv',
    platform: 'androidtv',
    storeUrl: 'https://play.google.com/store/apps/details?id=com.harborvideo.androidtv',
  });
  await create(as, 'sdkapps', {
    name: 'Harbor Video for Roku',
    bundle: '683921',
    platform: 'roku',
    storeUrl: 'https://channelstore.roku.com/details/683921/harbor-video',
  });
}

/** Help text of the fields people ask about most, written by the platform admin. */
async function seedTooltips(ctx: SeedContext): Promise<void> {
  const create = creator(ctx);
  const as: Actor = { user: ctx.users.admin, adminId: null };
  const tips: [string, string][] = [
    [
      'channels.floorCpm',
      'The lowest CPM (USD) this channel accepts. Bids and demand tags priced below it are not served; raise it to protect yield, lower it to improve fill.',
    ],
    [
      'channels.payout',
      'What the publisher of this channel earns: a revenue share (percent of what demand pays) or a fixed CPM (USD per 1,000 impressions) whatever the clearing price.',
    ],
    [
      'tags.timeoutMs',
      'How long the ad server waits for this demand source, in milliseconds, before it moves on. VAST wrappers need 1000-2000 ms; OpenRTB and Prebid bidders 300-900 ms.',
    ],
    [
      'tags.priority',
      'Order in which a channel in priority mode calls its demand: 1 is called first. Tags with the same priority compete in an auction.',
    ],
    [
      'campaigns.pacing',
      'Even spreads the daily budget across the day so the campaign delivers until midnight; ASAP spends it as fast as winning bids allow.',
    ],
  ];
  for (const [key, text] of tips) await create(as, 'tooltips', { key, text });
}

/** Every kind of inventory, for every role of the demo (see README: the demo sign-ins). */
export const seedInventory: SeedStep = async (ctx) => {
  await seedNorthwindInventory(ctx);
  await seedAcmeInventory(ctx);
  await seedSdkApps(ctx);
  await seedTooltips(ctx);
};

import { type Price } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../clock.js';
import { inlineVast } from '../../../test/demandServers.js';
import { type LocalServer, localServer } from '../../../test/localServer.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { DeliveryGate } from '../auction/deliveryGate.js';
import { CurrencyRates } from '../ortb/currency.js';
import { buildRequestContext } from '../request/context.js';
import { indexCampaigns } from '../snapshot/campaigns.js';
import { type SnapChannel, type Snapshot, type SnapTag } from '../snapshot/types.js';
import { demandAgent } from './deadline.js';
import { type AuctionRequest, type CallResult } from './demandSource.js';
import { VastFetcher } from './vastFetcher.js';
import { vastTagSource } from './vastTagSource.js';

/**
 * A VAST demand tag's price: a revshare tag's share of the <Pricing> its answer states, in another
 * currency than USD at the operator's rates (the feed's current ones, read at each call, as the
 * OpenRTB sources read them); without a rate, no price stated.
 */
describe('VAST tag source pricing', () => {
  let demand: LocalServer;
  let base = '';
  const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));

  beforeAll(async () => {
    demand = await localServer((req, res) => {
      const cur = new URL(req.url ?? '/', 'http://x').searchParams.get('cur') ?? 'USD';
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(inlineVast(base, 8).replace('currency="USD"', `currency="${cur}"`));
    });
    base = demand.url;
  });

  afterAll(async () => {
    await fetcher.close();
    await demand.close();
  });

  function requestFor(cur: string, price: Price): AuctionRequest {
    const tag: SnapTag = {
      id: 100,
      tenantId: 1,
      name: 'tag',
      integration: 'VAST',
      vastUrl: `${base}/vast?cur=${cur}`,
      endpoint: '',
      partner: '',
      partnerParams: {},
      price,
      floorCpm: 0,
      timeoutMs: 1000,
      qpsLimit: 'unlimited',
      dailyRequestCap: 'unlimited',
      dailyImpCap: 'unlimited',
      advertiserId: 0,
      targeting: null,
      userSyncUrl: '',
    };
    const channel: SnapChannel = {
      id: 1,
      uid: 'ch',
      tenantId: 1,
      subpublisherId: 0,
      name: 'Channel',
      serving: true,
      integration: 'VAST',
      environment: 'web',
      format: 'video',
      vastVersion: '4.2',
      floorCpm: 0,
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      auctionPrice: 'first',
      timeoutMs: 1000,
      targeting: null,
      demand: [{ tag, priority: 1 }],
      idleTags: [],
    };
    const snapshot: Snapshot = {
      version: 1,
      builtAt: 0,
      buildMs: 0,
      tenants: new Map([[1, { id: 1, name: 'T', timezone: 0, showDsp: true }]]),
      channelsByUid: new Map([['ch', channel]]),
      channels: new Map([[1, channel]]),
      tags: new Map([[tag.id, tag]]),
      campaigns: new Map(),
      creatives: new Map(),
      suppliersByUid: new Map(),
      adExchanges: new Map(),
      deals: new Map(),
      campaignIndex: indexCampaigns([]),
      skipped: {},
    };
    const ctx = buildRequestContext(
      { w: '640', h: '360', ip: '8.8.8.8' },
      {
        remoteAddress: '127.0.0.1',
        userAgent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      },
      Date.now(),
    );
    return {
      clock: systemClock,
      ctx,
      channel,
      snapshot,
      pacing: new DeliveryGate(),
      deadline: Date.now() + 1000,
      supplier: null,
      deals: [],
      privateAuction: false,
    };
  }

  async function call(
    source: ReturnType<typeof vastTagSource>,
    cur: string,
    price: Price = { type: 'revshare', percent: 50 },
  ): Promise<CallResult> {
    const req = requestFor(cur, price);
    const { candidates } = source.candidates(req, () => undefined);
    expect(candidates).toHaveLength(1);
    return await candidates[0]!.call(req);
  }

  it("bids a revshare tag's share of a price in euros at the operator's rates, read at each call", async () => {
    // 1 USD = 0.8 EUR: 8 EUR is $10, the tag's half $5
    const feed = { current: new CurrencyRates({ USD: { EUR: 0.8 } }) };
    const source = vastTagSource(fetcher, { currency: feed });
    expect(await call(source, 'EUR')).toMatchObject({ kind: 'bid', bid: { priceCpm: 5_000_000, fixedPrice: false } });
    expect(await call(source, 'USD')).toMatchObject({ kind: 'bid', bid: { priceCpm: 4_000_000 } });
    // a currency without a rate states no price
    expect(await call(source, 'CHF')).toMatchObject({ kind: 'no_fill', reason: 'no_price_stated' });
    // the rates refreshed (CurrencyFeed replaces `current`): the next call reads the new ones
    feed.current = new CurrencyRates({ USD: { EUR: 0.5, CHF: 1 } });
    expect(await call(source, 'EUR')).toMatchObject({ kind: 'bid', bid: { priceCpm: 8_000_000 } });
    expect(await call(source, 'CHF')).toMatchObject({ kind: 'bid', bid: { priceCpm: 4_000_000 } });
    // a CPM tag pays its CPM, whatever the answer states
    expect(await call(source, 'JPY', { type: 'cpm', cpm: 3_000_000 })).toMatchObject({
      kind: 'bid',
      bid: { priceCpm: 3_000_000, fixedPrice: true },
    });
  });

  it('without rates (none given), a price in another currency is no price stated', async () => {
    const source = vastTagSource(fetcher);
    expect(await call(source, 'EUR')).toMatchObject({ kind: 'no_fill', reason: 'no_price_stated' });
    expect(await call(source, 'USD')).toMatchObject({ kind: 'bid', bid: { priceCpm: 4_000_000 } });
  });
});

import { describe, expect, it } from 'vitest';
import { parseCampaignRow, parseChannelRow, parseCreativeRow, parseDemandTagRow, type SkipSink } from '@adplane/shared';
import { ENTITY_TABLES } from '../src/store/entityTables.js';
import { toExplicitUnits } from '../src/store/migrations/0006_explicit_units.js';
import { migrateToLatest, migratorOf } from '../src/store/migrations/index.js';
import { forEachStore } from './helpers.js';

/**
 * Migration 0006 rewrites stored documents in explicit units: one discriminated price, 'unlimited'
 * for caps and budgets that were 0, lists for creative domains and categories. Nothing is lost: down
 * then up gives back the same documents, and rows written in the old units come out as meant.
 */
type Doc = Record<string, unknown>;

describe('toExplicitUnits', () => {
  it('reads a tag price by its old pricing field, and 0 caps as unlimited', () => {
    expect(toExplicitUnits('tags', { pricing: 'revshare', price: 82, qpsLimit: 0, dailyImpCap: 5000 })).toEqual({
      price: { type: 'revshare', percent: 82 },
      qpsLimit: 'unlimited',
      dailyImpCap: 5000,
    });
    expect(toExplicitUnits('tags', { pricing: 'cpm', price: 6_500_000 }).price).toEqual({
      type: 'cpm',
      cpm: 6_500_000,
    });
    const already = { price: { type: 'cpm', cpm: 1 }, qpsLimit: 'unlimited' };
    expect(toExplicitUnits('tags', already)).toEqual(already);
  });

  it('turns a channel payout value into its unit, creative strings into lists, 0 budgets into unlimited', () => {
    expect(toExplicitUnits('channels', { payout: { type: 'cpm', value: 4_500_000 } }).payout).toEqual({
      type: 'cpm',
      cpm: 4_500_000,
    });
    expect(toExplicitUnits('channels', { payout: { type: 'revshare', value: 65 } }).payout).toEqual({
      type: 'revshare',
      percent: 65,
    });
    expect(toExplicitUnits('creatives', { adomain: 'brand.test', iabCategory: 'IAB2' })).toEqual({
      adomain: ['brand.test'],
      iabCategories: ['IAB2'],
    });
    expect(toExplicitUnits('creatives', { adomain: '', iabCategory: '' })).toEqual({ adomain: [], iabCategories: [] });
    expect(toExplicitUnits('campaigns', { totalBudget: 0, dailyBudget: 900 })).toEqual({
      totalBudget: 'unlimited',
      dailyBudget: 900,
    });
    expect(toExplicitUnits('sups', { qpsLimit: 0 })).toEqual({ qpsLimit: 'unlimited' });
  });
});

forEachStore((t) => {
  const docsOf = async (table: string) => {
    const rows = await t.store.db
      .withTables<Record<string, { id: number; data: string }>>()
      .selectFrom(table)
      .select(['id', 'data'])
      .orderBy('id')
      .execute();
    return new Map(rows.map((r) => [r.id, JSON.parse(r.data) as Doc]));
  };
  const tables = [
    ENTITY_TABLES.tags,
    ENTITY_TABLES.channels,
    ENTITY_TABLES.campaigns,
    ENTITY_TABLES.creatives,
    ENTITY_TABLES.sups,
    ENTITY_TABLES.adexchanges,
  ];

  it('migrates old rows to the new units and back without losing anything', async () => {
    const before = new Map<string, Map<number, Doc>>();
    for (const table of tables) before.set(table, await docsOf(table));

    const down = await migratorOf(t.store).migrateTo('0004_config_version');
    expect(down.error).toBeUndefined();
    const oldTags = await docsOf(ENTITY_TABLES.tags);
    expect(
      [...oldTags.values()].every(
        (d) => typeof d.price === 'number' && (d.pricing === 'cpm' || d.pricing === 'revshare'),
      ),
    ).toBe(true);
    const oldCreatives = await docsOf(ENTITY_TABLES.creatives);
    expect([...oldCreatives.values()].every((d) => typeof d.adomain === 'string' && 'iabCategory' in d)).toBe(true);

    // A row written by the old console: 0 meant "no limit", the price is read through `pricing`.
    const tenant = (
      await t.store.db.selectFrom('users').select('id').where('username', '=', 'demand').executeTakeFirstOrThrow()
    ).id;
    const legacy = await t.store.db
      .withTables<Record<string, { id: number; tenant_id: number; name: string; data: string }>>()
      .insertInto(ENTITY_TABLES.tags)
      .values({
        tenant_id: tenant,
        name: 'Legacy tag',
        data: JSON.stringify({
          integration: 'RTB',
          endpoint: 'https://bid.legacy.test/rtb',
          pricing: 'revshare',
          price: 75,
          qpsLimit: 0,
          dailyRequestCap: 0,
          dailyImpCap: 10,
        }),
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();

    expect(await migrateToLatest(t.store)).toContain('0006_explicit_units');
    for (const table of tables) {
      const after = await docsOf(table);
      for (const [id, doc] of before.get(table)!) expect(after.get(id), `${table} #${id}`).toEqual(doc);
    }
    const row = (await docsOf(ENTITY_TABLES.tags)).get(legacy.id)!;
    expect(row).toMatchObject({
      price: { type: 'revshare', percent: 75 },
      qpsLimit: 'unlimited',
      dailyRequestCap: 'unlimited',
      dailyImpCap: 10,
    });
    expect(row).not.toHaveProperty('pricing');

    // Every migrated row reads back through its kind's typed parser.
    const sink: SkipSink = { skipped: [] };
    const parse = {
      tags: parseDemandTagRow,
      channels: parseChannelRow,
      campaigns: parseCampaignRow,
      creatives: parseCreativeRow,
    } as const;
    for (const [kind, parser] of Object.entries(parse)) {
      for (const [id, data] of await docsOf(ENTITY_TABLES[kind as keyof typeof parse])) {
        expect(
          parser({ id, tenantId: tenant, uid: null, status: 1, archived: false, name: `#${id}`, data }, sink),
          `${kind} #${id}`,
        ).not.toBeNull();
      }
    }
    expect(sink.skipped).toEqual([]);
  });
});

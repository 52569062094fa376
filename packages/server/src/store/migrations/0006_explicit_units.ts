import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { jsonFieldExpression } from './columns.js';

/**
 * Stored documents in explicit units (docs/entity-model.md), nothing lost:
 * - demand tag `pricing` + `price` becomes one `price`: `{ type: 'cpm', cpm }` or `{ type: 'revshare', percent }`;
 * - channel `payout: { type, value }` becomes `{ type: 'revshare', percent }` or `{ type: 'cpm', cpm }`;
 * - caps and budgets stored as 0 meant "no limit": they become 'unlimited' (tag qpsLimit,
 *   dailyRequestCap, dailyImpCap; supplier and ad exchange qpsLimit; campaign totalBudget, dailyBudget);
 * - creative `adomain` (one domain) and `iabCategory` (one id) become lists `adomain` and `iabCategories`.
 * The tag list no longer sorts by price (a price is no longer one number), so its index goes.
 *
 * The conversions are written out here, not imported, so that this migration keeps its meaning when
 * the schemas move on.
 */
type Doc = Record<string, unknown>;

const TABLES = {
  tags: 'demand_tags',
  channels: 'supply_channels',
  sups: 'suppliers',
  adexchanges: 'ad_exchanges',
  campaigns: 'campaigns',
  creatives: 'creatives',
} as const;
type Kind = keyof typeof TABLES;

const zeroToUnlimited = (doc: Doc, fields: string[]) => {
  for (const f of fields) if (doc[f] === 0) doc[f] = 'unlimited';
};
const unlimitedToZero = (doc: Doc, fields: string[]) => {
  for (const f of fields) if (doc[f] === 'unlimited') doc[f] = 0;
};
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The document in the new units (a copy); documents already converted come back equal. */
export function toExplicitUnits(kind: Kind, input: Doc): Doc {
  const doc: Doc = { ...input };
  switch (kind) {
    case 'tags':
      if (typeof doc.price === 'number' || 'pricing' in doc) {
        const price = num(doc.price);
        doc.price =
          doc.pricing === 'revshare' ? { type: 'revshare', percent: price } : { type: 'cpm', cpm: Math.round(price) };
        delete doc.pricing;
      }
      zeroToUnlimited(doc, ['qpsLimit', 'dailyRequestCap', 'dailyImpCap']);
      break;
    case 'channels': {
      const p = doc.payout as { type?: unknown; value?: unknown } | undefined;
      if (p && typeof p === 'object' && 'value' in p) {
        doc.payout =
          p.type === 'cpm'
            ? { type: 'cpm', cpm: Math.round(num(p.value)) }
            : { type: 'revshare', percent: num(p.value) };
      }
      break;
    }
    case 'sups':
    case 'adexchanges':
      zeroToUnlimited(doc, ['qpsLimit']);
      break;
    case 'campaigns':
      zeroToUnlimited(doc, ['totalBudget', 'dailyBudget']);
      break;
    case 'creatives':
      if (!Array.isArray(doc.adomain))
        doc.adomain = typeof doc.adomain === 'string' && doc.adomain.trim() ? [doc.adomain.trim()] : [];
      if ('iabCategory' in doc || !Array.isArray(doc.iabCategories)) {
        const single = typeof doc.iabCategory === 'string' && doc.iabCategory.trim() ? [doc.iabCategory.trim()] : [];
        doc.iabCategories = Array.isArray(doc.iabCategories) ? doc.iabCategories : single;
        delete doc.iabCategory;
      }
      break;
  }
  return doc;
}

/** Back to the old units (for `down`): lists keep their first entry, 'unlimited' becomes 0. */
function toImplicitUnits(kind: Kind, input: Doc): Doc {
  const doc: Doc = { ...input };
  switch (kind) {
    case 'tags': {
      const p = doc.price as { type?: string; cpm?: number; percent?: number } | undefined;
      if (p && typeof p === 'object') {
        doc.pricing = p.type === 'revshare' ? 'revshare' : 'cpm';
        doc.price = p.type === 'revshare' ? num(p.percent) : num(p.cpm);
      }
      unlimitedToZero(doc, ['qpsLimit', 'dailyRequestCap', 'dailyImpCap']);
      break;
    }
    case 'channels': {
      const p = doc.payout as { type?: string; cpm?: number; percent?: number } | undefined;
      if (p && typeof p === 'object' && !('value' in p))
        doc.payout = {
          type: p.type === 'cpm' ? 'cpm' : 'revshare',
          value: p.type === 'cpm' ? num(p.cpm) : num(p.percent),
        };
      break;
    }
    case 'sups':
    case 'adexchanges':
      unlimitedToZero(doc, ['qpsLimit']);
      break;
    case 'campaigns':
      unlimitedToZero(doc, ['totalBudget', 'dailyBudget']);
      break;
    case 'creatives':
      doc.adomain = Array.isArray(doc.adomain) ? String(doc.adomain[0] ?? '') : (doc.adomain ?? '');
      doc.iabCategory = Array.isArray(doc.iabCategories) ? String(doc.iabCategories[0] ?? '') : '';
      delete doc.iabCategories;
      break;
  }
  return doc;
}

async function rewrite(db: Kysely<unknown>, convert: (kind: Kind, doc: Doc) => Doc) {
  const d = db as unknown as Kysely<Record<string, { id: number; data: string }>>;
  for (const [kind, table] of Object.entries(TABLES) as [Kind, string][]) {
    const rows = await d.selectFrom(table).select(['id', 'data']).execute();
    for (const row of rows) {
      let doc: Doc;
      try {
        doc = JSON.parse(row.data) as Doc;
      } catch {
        continue; // a damaged document stays as it is: the typed parser skips and counts it
      }
      if (!doc || typeof doc !== 'object' || Array.isArray(doc)) continue;
      const next = JSON.stringify(convert(kind, doc));
      if (next !== JSON.stringify(doc))
        await d.updateTable(table).set({ data: next }).where('id', '=', row.id).execute();
    }
  }
}

export const explicitUnits = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await rewrite(db, toExplicitUnits);
    await db.schema.dropIndex('demand_tags_tenant_price').ifExists().execute();
  },
  async down(db: Kysely<unknown>) {
    await rewrite(db, toImplicitUnits);
    await db.schema
      .createIndex('demand_tags_tenant_price')
      .on('demand_tags')
      .columns(['tenant_id', 'archived'])
      .expression(sql.raw(jsonFieldExpression(dialect, 'price')))
      .column('id')
      .execute();
  },
});

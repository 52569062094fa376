import {
  DIMENSION_COLUMNS,
  type CounterTable,
  type HourlyDimensions,
  type HourlyRow,
  type HourlyRows,
  isIdDimension,
  METRIC_COLUMNS,
} from './hourlyRow.js';

/**
 * The layout of the edge's counter rows as flat numbers (edge/counters/rowTable.ts), and how a row
 * of them reads as an HourlyRow. It lives with the stats store, not the edge, because the rows are
 * read where they are stored: the DuckDB store's thread (duckdb/duckdbThread.ts) takes a flush as
 * these arrays and makes the rows there, so the serving thread never builds nor encodes them.
 *
 * A row's key is its hour (hours since the epoch), then the request's columns, then the demand
 * source's: one decision adds several rows (the request, and each source's fate) that share the
 * request part, so the counters read that part once per request instead of once per row. Text is
 * kept as its index in the table's `text` list.
 */
export const REQUEST_COLUMNS = [
  'tenant_id',
  'channel_id',
  'subpublisher_id',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'app_bundle',
  'domain',
  'publisher_id',
  'integration',
  'supplier_id',
  'arm',
] as const satisfies readonly Exclude<keyof HourlyDimensions, 'hour'>[];
export const SOURCE_COLUMNS = [
  'tag_id',
  'partner',
  'advertiser_id',
  'campaign_id',
  'creative_id',
  'adexchange_id',
  'deal_id',
  'marketplace_name',
  'vast_error',
  'nofill_reason',
] as const satisfies readonly Exclude<keyof HourlyDimensions, 'hour'>[];

// every report column is in exactly one part of the key
if (
  [...REQUEST_COLUMNS, ...SOURCE_COLUMNS].sort().join() !==
  DIMENSION_COLUMNS.filter((c) => c !== 'hour')
    .sort()
    .join()
) {
  throw new Error('counterTable: the key columns are out of step with DIMENSION_COLUMNS');
}

/** A row's key: its hour, the request's columns, then the source's. */
const KEY_COLUMNS = ['hour', ...REQUEST_COLUMNS, ...SOURCE_COLUMNS] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];
export const KEY_WIDTH = KEY_COLUMNS.length;
export const METRICS = METRIC_COLUMNS.length;
/** Each key column's place in the key. */
const AT = Object.fromEntries(KEY_COLUMNS.map((c, i) => [c, i])) as Readonly<Record<KeyColumn, number>>;
/** Per key column, whether it holds text (kept as its index in the table's text list). */
export const IS_TEXT: readonly boolean[] = KEY_COLUMNS.map((c) => c !== 'hour' && !isIdDimension(c));
export const HOUR_MS = 3_600_000;

export function hourOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`;
}

/**
 * Row `row` of a table as an HourlyRow, built as one literal (a fixed shape is several times faster
 * than spreads); `text` is the list its text indexes were taken from.
 */
function hourlyRowOf(
  keys: Float64Array,
  sums: Float64Array,
  text: readonly string[],
  row: number,
  hour: string,
): HourlyRow {
  const k = keys;
  const o = row * KEY_WIDTH;
  const m = sums;
  const s = row * METRICS;
  return {
    hour,
    tenant_id: k[o + AT.tenant_id]!,
    channel_id: k[o + AT.channel_id]!,
    subpublisher_id: k[o + AT.subpublisher_id]!,
    tag_id: k[o + AT.tag_id]!,
    partner: text[k[o + AT.partner]!]!,
    advertiser_id: k[o + AT.advertiser_id]!,
    campaign_id: k[o + AT.campaign_id]!,
    creative_id: k[o + AT.creative_id]!,
    supplier_id: k[o + AT.supplier_id]!,
    adexchange_id: k[o + AT.adexchange_id]!,
    deal_id: text[k[o + AT.deal_id]!]!,
    marketplace_name: text[k[o + AT.marketplace_name]!]!,
    country: text[k[o + AT.country]!]!,
    region: text[k[o + AT.region]!]!,
    us_state: text[k[o + AT.us_state]!]!,
    device: text[k[o + AT.device]!]!,
    os: text[k[o + AT.os]!]!,
    browser: text[k[o + AT.browser]!]!,
    app_bundle: text[k[o + AT.app_bundle]!]!,
    domain: text[k[o + AT.domain]!]!,
    publisher_id: text[k[o + AT.publisher_id]!]!,
    integration: text[k[o + AT.integration]!]!,
    vast_error: text[k[o + AT.vast_error]!]!,
    nofill_reason: text[k[o + AT.nofill_reason]!]!,
    arm: text[k[o + AT.arm]!]!,
    reqs: m[s]!,
    opps: m[s + 1]!,
    demand_calls: m[s + 2]!,
    responses: m[s + 3]!,
    timeouts: m[s + 4]!,
    bids: m[s + 5]!,
    wins: m[s + 6]!,
    imps: m[s + 7]!,
    starts: m[s + 8]!,
    first_quartiles: m[s + 9]!,
    midpoints: m[s + 10]!,
    third_quartiles: m[s + 11]!,
    completes: m[s + 12]!,
    clicks: m[s + 13]!,
    errors: m[s + 14]!,
    ivt: m[s + 15]!,
    postbid_imps: m[s + 16]!,
    revenue: m[s + 17]!,
    cost: m[s + 18]!,
    rev_m: m[s + 19]!,
    rev_md: m[s + 20]!,
    source_reqs: m[s + 21]!,
    source_opps: m[s + 22]!,
    postbid_ivt: m[s + 23]!,
    deal_reqs: m[s + 24]!,
  };
}

// hourlyRowOf names each column by its place: a row whose key and sums are 1, 2, 3... must read
// back in order, or a column added to the report lands in another's.
{
  const read = hourlyRowOf(
    Float64Array.from(KEY_COLUMNS, (_, i) => i),
    Float64Array.from(METRIC_COLUMNS, (_, i) => i + 1),
    KEY_COLUMNS.map((_, i) => `#${i}`),
    0,
    'hour',
  ) as unknown as Record<string, unknown>;
  const wrong =
    KEY_COLUMNS.some((c, i) => c !== 'hour' && read[c] !== (IS_TEXT[i] ? `#${i}` : i)) ||
    METRIC_COLUMNS.some((c, i) => read[c] !== i + 1);
  if (wrong || Object.keys(read).length !== KEY_COLUMNS.length + METRICS)
    throw new Error('counterTable: hourlyRowOf is out of step with the key or METRIC_COLUMNS');
}

/**
 * Rows `from` to `to` of a table as a batch for a stats store, each row object made as the store
 * reads it: a store that encodes row by row (DuckDB) holds one at a time, so they die young instead
 * of a thousand of them at once outliving a scavenge and being promoted with the whole batch.
 */
export function counterTableRows(table: CounterTable, from = 0, to = table.rows): HourlyRows {
  const hours = new Map<number, string>();
  const hourText = (h: number): string => {
    let text = hours.get(h);
    if (text === undefined) hours.set(h, (text = hourOf(h * HOUR_MS)));
    return text;
  };
  const { keys, sums, text } = table;
  return {
    length: to - from,
    *[Symbol.iterator]() {
      for (let row = from; row < to; row++) yield hourlyRowOf(keys, sums, text, row, hourText(keys[row * KEY_WIDTH]!));
    },
  };
}

import { type Kysely } from 'kysely';
import { type FinanceAnswer, type FinanceRow, formatDate, ReportRequest } from '@adplane/shared';
import { type Database } from '../../store/schema.js';
import { tenantPrices } from '../scope.js';
import { type StatsStore } from '../statsStore.js';
import { getReport } from './getReport.js';

const lastDay = (month: string) => formatDate(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0));

/**
 * Finance: each tenant's system cost for a month from its prices, billed in the tenant's own time
 * zone, so it equals the month-to-date cost the tenant sees in its navigation (the same report, the
 * same zone). Up to today when the month is the current one.
 */
export async function getFinance(
  stats: StatsStore,
  db: Kysely<Database>,
  month: string,
  now: number,
): Promise<FinanceAnswer> {
  const tenants = await db
    .selectFrom('users')
    .select(['id', 'name', 'timezone'])
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null)
    .orderBy('name')
    .execute();
  const prices = await tenantPrices(db, null);
  const rows: FinanceRow[] = await Promise.all(
    tenants.map(async (tenant) => {
      const id = Number(tenant.id);
      const timezone = Number(tenant.timezone);
      const today = formatDate(now, timezone);
      const end = lastDay(month) < today ? lastDay(month) : today;
      const p = prices.get(id) ?? { priceReq: 0, priceImp: 0, pricePostbid: 0, priceDsp: 0 };
      const base = { tenantId: id, name: tenant.name, timezone, ...p };
      if (end < `${month}-01`) return { ...base, reqs: 0, imps: 0, postbidImps: 0, revenue: 0, systemCost: 0 };
      const request = ReportRequest.parse({
        startDate: `${month}-01`,
        endDate: end,
        timezone,
        metrics: ['reqs', 'imps', 'postbidImps', 'revenue', 'systemCost'],
      });
      const [total] = await getReport(
        { stats, db: null, scope: { tenantId: id }, prices: new Map([[id, p]]), viewer: { type: 'admin' } },
        request,
      );
      return {
        ...base,
        reqs: Number(total.reqs),
        imps: Number(total.imps),
        postbidImps: Number(total.postbidImps),
        revenue: Number(total.revenue),
        systemCost: Number(total.systemCost),
      };
    }),
  );
  const sum = (k: 'reqs' | 'imps' | 'postbidImps' | 'revenue' | 'systemCost') => rows.reduce((s, r) => s + r[k], 0);
  return {
    month,
    rows,
    totals: {
      reqs: sum('reqs'),
      imps: sum('imps'),
      postbidImps: sum('postbidImps'),
      revenue: sum('revenue'),
      systemCost: sum('systemCost'),
    },
  };
}

import { type DecisionTrace, deliveryReason, INDEXED_OUT_NAMED, type NotInAdServer } from '@adplane/shared';
import { type Store } from '../../store/db.js';
import { getEntities } from '../../store/entities.js';
import { type Snapshot } from '../snapshot/types.js';

/**
 * What a shown trace (`debug=1`, "Test this tag") adds from the config store, after the decision: the
 * account's campaigns the ad server left out of its snapshot, with the snapshot compile's reasons
 * (snapshot/setAside.ts, in the delivery state's codes and sentences), and the names of the demand
 * tags the channel lists that do not serve (the snapshot holds only their ids). The edge never
 * reads the store on a request: only these two doors, which answer a person, do it.
 */

/** Ids per query: well under what SQLite and PostgreSQL take as parameters. */
const CHUNK = 1000;

async function rowsOf(store: Store, kind: 'campaigns' | 'tags', tenantId: number, ids: readonly number[]) {
  const out = [];
  for (let i = 0; i < ids.length; i += CHUNK)
    out.push(...(await getEntities(store.db, kind, { tenantId }, ids.slice(i, i + CHUNK))));
  return out;
}

/**
 * The trace with the account's campaigns that are not in the ad server (`campaigns`: false for a
 * demand tag tested alone, which the campaigns do not compete for) and its idle tags named. Archived
 * campaigns are left out of the list: archived is gone on purpose, and a long-lived account has many.
 */
export async function withStoreNames(
  trace: DecisionTrace,
  store: Store,
  snapshot: Snapshot | null,
  tenantId: number,
  campaigns: boolean,
): Promise<DecisionTrace> {
  const aside = snapshot?.setAside?.campaigns;
  if (campaigns && snapshot && aside) {
    const ids = [...aside.keys()].filter((id) => !snapshot.campaigns.has(id));
    const rows = (await rowsOf(store, 'campaigns', tenantId, ids))
      .filter((r) => !r.archived)
      .map((r) => ({ key: r.name.toLowerCase(), r }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.r.id - b.r.id))
      .map(({ r }) => r);
    const listed: NotInAdServer[] = rows.slice(0, INDEXED_OUT_NAMED).map((r) => ({
      id: r.id,
      name: r.name,
      reasons: (aside.get(r.id) ?? []).map((why) => deliveryReason(why.code, why.detail)),
    }));
    trace.notInAdServer = { campaigns: listed, more: rows.length - listed.length };
  }
  // a tag listed on the channel but not live is traced by id: its name, when it is the account's own
  const idle = trace.sources.filter((s) => s.idle && s.source === 'vast_tag');
  if (idle.length) {
    const names = new Map(
      (await rowsOf(store, 'tags', tenantId, [...new Set(idle.map((s) => s.id))])).map((r) => [r.id, r.name]),
    );
    for (const s of idle) s.name = names.get(s.id) ?? s.name;
  }
  return trace;
}

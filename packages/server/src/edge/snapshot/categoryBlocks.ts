import { categoryBlocked } from '../targeting/impFit.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type CategoryBlocks, type SnapCreative } from './types.js';

/**
 * A targeting's blocked ad categories against the tenant's creatives, compiled once per snapshot:
 * the ids of the creatives whose IAB categories it blocks (IAB7 blocks a creative of IAB7-39). A
 * request then refuses our creatives on a channel (or a supplier) with one set lookup per creative,
 * never matching categories on the hot path. A set is made once per targeting and tenant and shared
 * by every channel and supplier that uses it.
 */
export class CategoryBlocksCompiler {
  private readonly byTenant = new Map<number, SnapCreative[]>();
  private readonly made = new Map<string, CategoryBlocks>();

  constructor(creatives: Iterable<SnapCreative>) {
    for (const c of creatives) {
      if (!c.iabCategories.length) continue;
      let list = this.byTenant.get(c.tenantId);
      if (!list) this.byTenant.set(c.tenantId, (list = []));
      list.push(c);
    }
  }

  /** What `targeting` blocks of the tenant's creatives; undefined when it blocks no category. */
  of(tenantId: number, targeting: CompiledTargeting | null): CategoryBlocks | undefined {
    const categories = targeting?.blockedAdCategories;
    if (!categories) return undefined;
    const key = `${tenantId}:${targeting.id}`;
    let blocks = this.made.get(key);
    if (!blocks) this.made.set(key, (blocks = categoryBlocks(categories, this.byTenant.get(tenantId) ?? [])));
    return blocks;
  }
}

/** The blocked categories and the ids of the creatives (of `creatives`) they block. */
export function categoryBlocks(categories: readonly string[], creatives: Iterable<SnapCreative>): CategoryBlocks {
  const blocked = new Set<number>();
  for (const c of creatives) if (c.iabCategories.some((cat) => categoryBlocked(cat, categories))) blocked.add(c.id);
  return { categories, creatives: blocked };
}

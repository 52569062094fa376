import { TargetingRules } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { blockedCategories } from '../demand/openrtbCall.js';
import { compileTargeting } from '../targeting/compiledTargeting.js';
import { CategoryBlocksCompiler } from './categoryBlocks.js';
import { type SnapChannel, type SnapCreative } from './types.js';

const LISTS = { apps: new Map(), publishers: new Map(), creatives: new Map() };
const targeting = (id: number, blocked: string[]) =>
  compileTargeting(id, TargetingRules.parse({ blockedAdCategories: blocked }), LISTS);
const creative = (id: number, tenantId: number, iabCategories: string[]) =>
  ({ id, tenantId, iabCategories }) as unknown as SnapCreative;

describe("a targeting's blocked ad categories, compiled against the tenant's creatives", () => {
  const creatives = [
    creative(1, 1, ['IAB7-39']),
    creative(2, 1, ['IAB17', 'IAB7']),
    creative(3, 1, ['IAB1-6']),
    creative(4, 1, []),
    creative(5, 2, ['IAB7-1']),
  ];

  it('holds the ids of the creatives of that tenant whose categories it blocks, a tier-1 code blocking its sub-categories', () => {
    const blocks = new CategoryBlocksCompiler(creatives);
    const health = blocks.of(1, targeting(10, ['IAB7']));
    expect(health?.categories).toEqual(['IAB7']);
    expect([...health!.creatives].sort()).toEqual([1, 2]);
    // another tenant's creatives are never its campaigns'
    expect([...blocks.of(2, targeting(11, ['IAB7']))!.creatives]).toEqual([5]);
    expect([...blocks.of(1, targeting(12, ['IAB1-6', 'IAB1-7']))!.creatives]).toEqual([3]);
  });

  it('is made once per targeting and tenant, shared by the channels and suppliers using it; nothing blocked, nothing made', () => {
    const blocks = new CategoryBlocksCompiler(creatives);
    const t = targeting(10, ['IAB7']);
    expect(blocks.of(1, t)).toBe(blocks.of(1, t));
    expect(blocks.of(1, targeting(13, []))).toBeUndefined();
    expect(blocks.of(1, null)).toBeUndefined();
    expect(targeting(13, []).blockedAdCategories).toBeNull();
  });
});

describe('the blocked ad categories a programmatic call sends and enforces', () => {
  const channel = (t: ReturnType<typeof targeting> | null, compiled?: string[]) =>
    ({
      targeting: t,
      ...(compiled ? { categoryBlocks: { categories: compiled, creatives: new Set() } } : {}),
    }) as unknown as SnapChannel;

  it("joins the channel's (or a supplier's channel's) with the demand's own targeting's, once each", () => {
    expect(blockedCategories(channel(targeting(1, ['IAB7', 'IAB25'])), targeting(2, ['IAB25', 'IAB26']))).toEqual([
      'IAB7',
      'IAB25',
      'IAB26',
    ]);
    expect(blockedCategories(channel(null, ['IAB3']), null)).toEqual(['IAB3']);
    expect(blockedCategories(channel(null), targeting(2, ['IAB26']))).toEqual(['IAB26']);
    expect(blockedCategories(channel(null), null)).toEqual([]);
  });
});

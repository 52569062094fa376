import { describe, expect, it } from 'vitest';
import { editionHas, entitlementRefusal, needsDsp } from './entitlements.js';

describe('entitlements', () => {
  it('needs showDsp for DSP kinds, for everyone but admins', () => {
    expect(needsDsp('campaigns')).toBe(true);
    expect(needsDsp('channels')).toBe(false);
    expect(entitlementRefusal('campaigns', { type: 'demand' }, false, 'default')).toMatch(/DSP view/);
    expect(entitlementRefusal('campaigns', { type: 'demand' }, true, 'default')).toBeNull();
    expect(entitlementRefusal('campaigns', { type: 'admin' }, false, 'default')).toBeNull();
  });

  it('opens edition-only features in their edition only', () => {
    expect(editionHas('crelists', 'V2V')).toBe(true);
    expect(editionHas('crelists', 'default')).toBe(false);
    expect(entitlementRefusal('managers', { type: 'demand' }, true, 'default')).toMatch(/not part of this edition/);
    expect(entitlementRefusal('activity', { type: 'admin' }, true, 'CTVMediaV2V')).toBeNull();
    expect(entitlementRefusal('activity', { type: 'admin' }, true, 'V2V')).toMatch(/User Activity/);
  });
});

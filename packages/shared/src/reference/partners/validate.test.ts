import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARTNERS } from './catalogue.js';
import { PARTNER_DATA } from './partners.data.js';
import { type PartnerParam } from './types.js';
import { partnerValidatorsCode } from './validatorCode.js';
import { validatePartnerParams } from './validate.js';

const errorsOf = (partnerId: string, params: unknown) => {
  const result = validatePartnerParams(partnerId, params);
  return result.ok ? [] : result.errors;
};
const fieldsOf = (partnerId: string, params: unknown) => errorsOf(partnerId, params).map((e) => e.field);

/** A value a form would enter for a parameter, honouring its type, enum, pattern, format and sizes. */
function sample(p: PartnerParam): unknown {
  if (p.enum) return p.enum[0];
  switch (p.type) {
    case 'integer':
    case 'number':
      return Math.max(p.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(p.minItems ?? 1, 1) }, () =>
        p.itemType === 'integer' || p.itemType === 'number' ? 300 : 'value',
      );
    case 'object':
      return fill(p.fields ?? [], p.requiredSets?.[0] ?? []);
    case 'string':
      if (p.format === 'hostname') return 'ads.example.com';
      if (p.format === 'uuid') return '0f8b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
      return p.pattern && /^\^(\[0-9\]|\\d)\+/.test(p.pattern) ? '12345' : 'abc123'.padEnd(p.minLength ?? 0, 'x');
  }
}

/** Values for one required combination of parameters. */
const fill = (params: readonly PartnerParam[], names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, sample(params.find((p) => p.name === name) as PartnerParam)]));

describe('validatePartnerParams', () => {
  it('accepts, for every partner, the first required combination filled in from the parameter list', () => {
    for (const partner of PARTNERS) {
      const params = fill(partner.params, partner.requiredSets[0]);
      expect(validatePartnerParams(partner.id, params), partner.id).toEqual({ ok: true, value: params });
      expect(validatePartnerParams(partner.prebidVariantId ?? '', params).ok, `${partner.id} variant`).toBe(true);
    }
  });

  it('refuses, for every partner with required parameters, an empty set-up, naming a parameter', () => {
    for (const partner of PARTNERS.filter((p) => p.requiredSets.every((set) => set.length > 0))) {
      const errors = errorsOf(partner.id, {});
      expect(errors.length, partner.id).toBeGreaterThan(0);
      for (const e of errors) {
        expect(
          partner.params.map((p) => p.name),
          partner.id,
        ).toContain(e.field);
        expect(e.message.startsWith(`${e.field} `)).toBe(true);
      }
    }
  });

  it('checks pubmatic (and its Prebid variant pubmaticP)', () => {
    const ok = { publisherId: '156209', adSlot: 'pubmatic_test@300x250', kadfloor: '0.50' };
    expect(validatePartnerParams('pubmaticP', ok)).toEqual({ ok: true, value: ok });
    expect(errorsOf('pubmaticP', { adSlot: 'x' })).toEqual([
      { field: 'publisherId', message: 'publisherId is required' },
    ]);
    expect(errorsOf('pubmatic', { publisherId: 156209 })).toEqual([
      { field: 'publisherId', message: 'publisherId must be text (got 156209)' },
    ]);
    expect(errorsOf('pubmatic', { publisherId: '1', wrapper: { version: 2 }, keywords: [{ key: 'genre' }] })).toEqual([
      { field: 'wrapper.profile', message: 'wrapper.profile is required' },
      { field: 'keywords.0.value', message: 'keywords.0.value is required' },
    ]);
  });

  it('checks appnexus: a placement id, or an inventory code with a member, not both', () => {
    expect(validatePartnerParams('appnexus', { placementId: 13144370 }).ok).toBe(true);
    expect(validatePartnerParams('appnexus', { placement_id: '13144370' }).ok).toBe(true);
    expect(validatePartnerParams('appnexus', { inv_code: 'abc', member: 958 }).ok).toBe(true);
    expect(errorsOf('appnexus', {})).toEqual([
      {
        field: 'placementId',
        message: 'placementId is required: set one of placementId, placement_id, invCode + member, inv_code + member',
      },
    ]);
    expect(fieldsOf('appnexus', { member: 958 })).toEqual(['invCode']);
    expect(errorsOf('appnexus', { placementId: 1, placement_id: 2 })).toEqual([
      {
        field: 'placement_id',
        message:
          'placement_id cannot be set together with placementId: set only one of placementId, placement_id, invCode + member, inv_code + member',
      },
    ]);
    // Both forms set: the oneOf names the second form, the schema's `not` the third of its three names (ajv reports `not` first).
    expect(errorsOf('appnexus', { placementId: 1, invCode: 'abc', member: 2 })).toEqual([
      { field: 'member', message: 'member cannot be set together with placementId and invCode' },
      {
        field: 'invCode',
        message:
          'invCode cannot be set together with placementId: set only one of placementId, placement_id, invCode + member, inv_code + member',
      },
    ]);
    expect(errorsOf('appnexus', { placementId: 1, position: 'middle' })).toEqual([
      { field: 'position', message: 'position must be one of: above, below' },
    ]);
    expect(errorsOf('appnexus', { placementId: 1, keywords: 5 })).toEqual([
      { field: 'keywords', message: 'keywords must be text, a list or an object (got 5)' },
    ]);
    expect(validatePartnerParams('appnexus', { placementId: 1, keywords: { genre: ['news'] } }).ok).toBe(true);
    expect(fieldsOf('appnexus', { placementId: 1, keywords: { genre: [1] } })).toEqual(['keywords.genre.0']);
  });

  it('refuses text for a numeric id, naming the field', () => {
    expect(errorsOf('teads', { placementId: '123' })).toEqual([
      { field: 'placementId', message: 'placementId must be a whole number (got text "123")' },
    ]);
    expect(errorsOf('adkernel', { zoneId: '123' })).toEqual([
      { field: 'zoneId', message: 'zoneId must be a whole number (got text "123")' },
    ]);
    expect(errorsOf('adkernel', { zoneId: 0 })).toEqual([{ field: 'zoneId', message: 'zoneId must be at least 1' }]);
    expect(errorsOf('improvedigital', { placementId: 1.5 })).toEqual([
      { field: 'placementId', message: 'placementId must be a whole number (got 1.5)' },
    ]);
    expect(errorsOf('triplelift', { inventoryCode: 'x', floor: '0.5' })).toEqual([
      { field: 'floor', message: 'floor must be a number (got text "0.5")' },
    ]);
    expect(validatePartnerParams('adkernel', { zoneId: 123 })).toEqual({ ok: true, value: { zoneId: 123 } });
  });

  it('checks rubicon ids that may be numbers or digit strings', () => {
    expect(validatePartnerParams('rubicon', { accountId: 1001, siteId: '113932', zoneId: 535510 }).ok).toBe(true);
    expect(errorsOf('rubicon', { accountId: '12a', siteId: 1, zoneId: 0 })).toEqual([
      { field: 'accountId', message: 'accountId must contain digits only' },
      { field: 'zoneId', message: 'zoneId must be at least 1' },
    ]);
    expect(errorsOf('rubicon', { accountId: 1, siteId: 1, zoneId: true })).toEqual([
      { field: 'zoneId', message: 'zoneId must be a whole number or text (got true)' },
    ]);
  });

  it('checks openx host names, uuids and its delivery alternatives', () => {
    expect(validatePartnerParams('openx', { unit: '539439964', delDomain: 'se-demo-d.openx.net' }).ok).toBe(true);
    expect(
      validatePartnerParams('openx', { unit: 539439964, platform: '0f8b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d' }).ok,
    ).toBe(true);
    expect(fieldsOf('openx', { unit: '1', delDomain: 'bad_host.openx.net' })).toEqual(['delDomain']);
    expect(errorsOf('openx', { unit: '1', platform: 'nope' })).toEqual([
      { field: 'platform', message: 'platform must be a UUID' },
    ]);
    expect(errorsOf('openx', { unit: '1' })).toEqual([
      { field: 'delDomain', message: 'delDomain is required: set one of delDomain, platform' },
    ]);
    expect(errorsOf('openx', { unit: 'abc', delDomain: 'x.openx.net' })).toEqual([
      { field: 'unit', message: 'unit must contain digits only' },
    ]);
  });

  it('checks dependent parameters (smartadserver) and nested alternatives (beachfront)', () => {
    expect(validatePartnerParams('smartadserver', { networkId: 4016, siteId: 1, pageId: 2, formatId: 3 }).ok).toBe(
      true,
    );
    expect(errorsOf('smartadserver', { networkId: 4016, siteId: 1 })).toEqual([
      { field: 'pageId', message: 'pageId is required when siteId is set' },
      { field: 'formatId', message: 'formatId is required when siteId is set' },
    ]);
    expect(validatePartnerParams('beachfront', { appIds: { video: 'abc' } }).ok).toBe(true);
    expect(errorsOf('beachfront', { appIds: {} })).toEqual([
      { field: 'appIds.video', message: 'appIds.video is required: set one of video, banner' },
    ]);
    expect(fieldsOf('beachfront', { appId: 'a', appIds: { video: 'b' } })).toEqual(['appId']);
  });

  it('checks enums, sizes and text lengths', () => {
    expect(errorsOf('between', { host: 'lbs-xx.ads', publisher_id: '1' })).toEqual([
      { field: 'host', message: 'host must be one of: lbs-eu1.ads, lbs-ru1.ads, lbs-us-east1.ads, lbs-asia1.ads' },
    ]);
    expect(errorsOf('ix', { siteId: '1', size: [300] })).toEqual([
      { field: 'size', message: 'size must hold at least 2 items' },
    ]);
    expect(errorsOf('ix', { siteId: '1', size: [300, 250, 1] })).toEqual([
      { field: 'size', message: 'size must hold at most 2 items' },
    ]);
    expect(errorsOf('gumgum', { zone: 'short' })).toEqual([
      { field: 'zone', message: 'zone must be at least 8 characters long' },
    ]);
    expect(errorsOf('yahooAds', { dcn: '', pos: 'p' })).toEqual([{ field: 'dcn', message: 'dcn must not be empty' }]);
  });

  it('answers for the parameters object itself and for unknown partners', () => {
    expect(errorsOf('pubmatic', 'publisherId=1')).toEqual([
      { field: '', message: 'Parameters must be an object (got text "publisherId=1")' },
    ]);
    expect(errorsOf('pubmatic', null)).toEqual([{ field: '', message: 'Parameters must be an object (got null)' }]);
    expect(errorsOf('nobody', {})).toEqual([
      { field: 'partner', message: 'partner "nobody" is not in the partner catalogue' },
    ]);
    expect(errorsOf('nobodyP', {})).toEqual([
      { field: 'partner', message: 'partner "nobodyP" is not in the partner catalogue' },
    ]);
  });

  it('keeps unknown parameters, treats undefined as absent and drops it from the value', () => {
    expect(validatePartnerParams('teads', { placementId: 5, extra: 'kept', note: undefined })).toEqual({
      ok: true,
      value: { placementId: 5, extra: 'kept' },
    });
    expect(fieldsOf('teads', { placementId: undefined })).toEqual(['placementId']);
  });

  it('checks anyOf branches of a parameter by the kind of value given (sovrn bidfloor) and its oneOf of spellings', () => {
    expect(validatePartnerParams('sovrn', { tagid: '315045', bidfloor: 0.5 }).ok).toBe(true);
    expect(validatePartnerParams('sovrn', { tagid: '315045', bidfloor: '0.5' }).ok).toBe(true);
    expect(errorsOf('sovrn', { tagid: '315045', bidfloor: true })).toEqual([
      { field: 'bidfloor', message: 'bidfloor must be a number or text (got true)' },
    ]);
    expect(errorsOf('sovrn', { tagid: '1', tagId: '2' })).toEqual([
      { field: 'tagId', message: 'tagId cannot be set together with tagid: set only one of tagid, tagId' },
    ]);
  });

  it('reports every problem at once, in the order of the schema', () => {
    expect(errorsOf('rubicon', { accountId: 'x', siteId: 1.5 })).toEqual([
      { field: 'zoneId', message: 'zoneId is required' },
      { field: 'accountId', message: 'accountId must contain digits only' },
      { field: 'siteId', message: 'siteId must be a whole number or text (got 1.5)' },
    ]);
  });

  it('validates through the generated ajv code, in step with the schemas and free of eval', () => {
    const text = readFileSync(new URL('./partners.validators.ts', import.meta.url), 'utf8');
    // Stale validators (a schema changed, the generator not run) fail here: run scripts/gen-partners.ts.
    expect(text).toContain(partnerValidatorsCode(PARTNER_DATA).trimEnd());
    // The console runs it under a CSP without 'unsafe-eval'.
    expect(text).not.toMatch(/new Function|\beval\(|require\(/);
    expect(text).not.toMatch(/^import /m);
  });
});

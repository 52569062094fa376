import { describe, expect, it } from 'vitest';
import { describePartnerParams } from './describe.js';
import { assertSupportedSchema, requiredSets } from './jsonSchema.js';
import {
  isPartner,
  PARTNERS,
  PARTNER_BY_ID,
  partnerById,
  PREBID_PARTNER_OPTIONS,
  PREBID_VARIANT_SUFFIX,
  resolvePartner,
} from './catalogue.js';

/** The 40 files of vendor/prebid-bidder-params/, by bidder code. */
const PARTNER_IDS = [
  '33across',
  'adkernel',
  'adtelligent',
  'amx',
  'appnexus',
  'beachfront',
  'between',
  'colossus',
  'consumable',
  'conversant',
  'criteo',
  'datablocks',
  'emx_digital',
  'gumgum',
  'improvedigital',
  'ix',
  'kargo',
  'medianet',
  'minutemedia',
  'nextmillennium',
  'onetag',
  'openx',
  'outbrain',
  'pubmatic',
  'richaudience',
  'rubicon',
  'sharethrough',
  'smaato',
  'smartadserver',
  'smilewanted',
  'sonobi',
  'sovrn',
  'sovrnXsp',
  'taboola',
  'teads',
  'triplelift',
  'unruly',
  'vidazoo',
  'yahooAds',
  'yieldmo',
];

const param = (partnerId: string, name: string) => partnerById(partnerId)?.params.find((p) => p.name === name);

describe('partner catalogue', () => {
  it('holds every partner, once, sorted by name', () => {
    expect(PARTNERS.map((p) => p.id).sort()).toEqual([...PARTNER_IDS].sort());
    expect(PARTNER_BY_ID.size).toBe(40);
    const names = PARTNERS.map((p) => p.name.toLowerCase());
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('lists each schema property as a parameter, in step with the schema', () => {
    for (const partner of PARTNERS) {
      expect(partner.params.map((p) => p.name)).toEqual(Object.keys(partner.schema.properties ?? {}));
      expect(partner.params).toEqual(describePartnerParams(partner.schema));
      expect(partner.requiredSets).toEqual(requiredSets(partner.schema));
      expect(() => assertSupportedSchema(partner.schema)).not.toThrow();
      expect(partner.schema.type).toBe('object');
    }
  });

  it('keeps display names in the companies spelling', () => {
    expect(partnerById('pubmatic')?.name).toBe('PubMatic');
    expect(partnerById('appnexus')?.name).toBe('AppNexus');
    expect(partnerById('ix')?.name).toBe('Index Exchange');
    expect(partnerById('33across')?.name).toBe('33Across');
    expect(partnerById('emx_digital')?.name).toBe('EMX Digital');
  });

  it('gives every Prebid bidder a Prebid variant id ending in P', () => {
    for (const partner of PARTNERS) {
      expect(partner.prebid).toBe(true);
      expect(partner.prebidVariantId).toBe(`${partner.id}${PREBID_VARIANT_SUFFIX}`);
      expect(PARTNER_BY_ID.has(partner.prebidVariantId ?? '')).toBe(false);
    }
    expect(resolvePartner('pubmatic')).toEqual({ partner: PARTNER_BY_ID.get('pubmatic'), prebid: false });
    expect(resolvePartner('pubmaticP')).toEqual({ partner: PARTNER_BY_ID.get('pubmatic'), prebid: true });
    expect(resolvePartner('nobody')).toBeUndefined();
    expect(isPartner('appnexusP')).toBe(true);
    expect(isPartner('appnexusp')).toBe(false);
    expect(PREBID_PARTNER_OPTIONS).toHaveLength(40);
    expect(PREBID_PARTNER_OPTIONS).toContainEqual({ id: 'pubmaticP', name: 'PubMatic' });
  });

  it('resolves pubmaticP to its ad-slot parameters', () => {
    // PubMatic's schema has publisherId (the one required), adSlot (the ad slot id, which some call tagId)
    // and kadfloor, spelled in lower case.
    const pubmaticP = partnerById('pubmaticP');
    expect(pubmaticP?.id).toBe('pubmatic');
    const names = pubmaticP?.params.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['publisherId', 'adSlot', 'kadfloor']));
    expect(names).not.toContain('tagId');
    expect(param('pubmaticP', 'publisherId')).toMatchObject({
      type: 'string',
      required: true,
      description: 'An ID which identifies the publisher',
    });
    expect(param('pubmaticP', 'adSlot')).toMatchObject({
      type: 'string',
      required: false,
      description: 'An ID which identifies the ad slot',
    });
    expect(param('pubmaticP', 'kadfloor')).toMatchObject({
      type: 'string',
      required: false,
      description: 'bid floor value set to imp.bidfloor',
    });
    expect(param('pubmatic', 'wrapper')?.fields?.map((f) => [f.name, f.type, f.required])).toEqual([
      ['profile', 'integer', true],
      ['version', 'integer', false],
    ]);
    expect(pubmaticP?.requiredSets).toEqual([['publisherId']]);
  });

  it('marks numeric ids as numbers and the rest as text', () => {
    expect(param('adkernel', 'zoneId')).toMatchObject({ type: 'integer', numeric: true, required: true, minimum: 1 });
    expect(param('teads', 'placementId')).toMatchObject({ type: 'integer', numeric: true, required: true });
    expect(param('smartadserver', 'siteId')).toMatchObject({
      type: 'integer',
      numeric: true,
      required: false,
      requires: ['pageId', 'formatId'],
    });
    expect(param('rubicon', 'accountId')).toMatchObject({
      type: 'integer',
      types: ['integer', 'string'],
      numeric: true,
      required: true,
      pattern: '^\\d+$',
    });
    expect(param('sovrn', 'bidfloor')).toMatchObject({ type: 'number', types: ['number', 'string'], numeric: true });
    expect(param('appnexus', 'keywords')).toMatchObject({
      type: 'string',
      types: ['string', 'array', 'object'],
      numeric: false,
    });
    expect(param('pubmatic', 'publisherId')?.numeric).toBe(false);
    // JSON Schema applies a pattern to text only, so a number-only parameter shows none.
    expect(param('consumable', 'siteId')).toMatchObject({ type: 'number', numeric: true });
    expect(param('consumable', 'siteId')?.pattern).toBeUndefined();
    expect(param('between', 'host')?.enum).toEqual(['lbs-eu1.ads', 'lbs-ru1.ads', 'lbs-us-east1.ads', 'lbs-asia1.ads']);
    expect(param('ix', 'size')).toMatchObject({ type: 'array', itemType: 'integer', minItems: 2, maxItems: 2 });
    expect(param('kargo', 'adSlotID')?.deprecated).toBe(true);
    expect(param('kargo', 'placementId')?.deprecated).toBe(false);
  });

  it('derives required parameters from required alternatives', () => {
    expect(partnerById('33across')?.requiredSets).toEqual([
      ['productId', 'siteId'],
      ['productId', 'zoneId'],
    ]);
    expect(param('33across', 'productId')?.required).toBe(true);
    expect(param('33across', 'siteId')?.required).toBe(false);
    expect(partnerById('openx')?.requiredSets).toEqual([
      ['unit', 'delDomain'],
      ['unit', 'platform'],
    ]);
    expect(partnerById('appnexus')?.requiredSets).toEqual([
      ['placementId'],
      ['placement_id'],
      ['invCode', 'member'],
      ['inv_code', 'member'],
    ]);
    expect(partnerById('appnexus')?.params.filter((p) => p.required)).toEqual([]);
    expect(partnerById('amx')?.requiredSets).toEqual([[]]);
  });
});

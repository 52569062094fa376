import { describe, expect, it } from 'vitest';
import {
  compileFloorRules,
  type FloorFacts,
  floorInForceText,
  FloorRules,
  type FloorRulesInput,
  matchFloor,
  wildcardOrder,
} from './floorRules.js';

const compiled = (r: FloorRulesInput) => compileFloorRules(FloorRules.parse(r));
const floorOf = (r: FloorRulesInput, facts: FloorFacts) => matchFloor(compiled(r), facts);

describe('floor rules: selection as Prebid floors module selects a rule', () => {
  // The module's basic one-field rule set: a floor per media type and a catch-all.
  const byMediaType: FloorRulesInput = {
    schema: { fields: ['mediaType'] },
    values: { banner: 1.0, video: 5.0, '*': 2.5 },
  };
  it('one field: the media type rule, else the catch-all', () => {
    expect(floorOf(byMediaType, { mediaType: 'banner' })).toEqual({ rule: 'banner', floorCpm: 1_000_000 });
    expect(floorOf(byMediaType, { mediaType: 'video' })).toEqual({ rule: 'video', floorCpm: 5_000_000 });
    expect(floorOf(byMediaType, { mediaType: 'native' })).toEqual({ rule: '*', floorCpm: 2_500_000 });
    // no media type known (several on the ad unit): only `*` is tried
    expect(floorOf(byMediaType, {})).toEqual({ rule: '*', floorCpm: 2_500_000 });
  });

  // The module's configuration example: media type and size, a catch-all per media type, one for all, a default.
  const mediaTypeAndSize: FloorRulesInput = {
    schema: { fields: ['mediaType', 'size'] },
    values: {
      'banner|300x250': 0.86,
      'banner|300x600': 0.97,
      'banner|728x90': 1.12,
      'banner|*': 0.54,
      'video|640x480': 6.76,
      'video|1152x648': 11.76,
      'video|*': 4.55,
      '*|*': 0.3,
    },
    default: 0.01,
  };
  it('two fields: the exact size, else the media type with any size, else any', () => {
    expect(floorOf(mediaTypeAndSize, { mediaType: 'banner', size: '300x250' })?.floorCpm).toBe(860_000);
    expect(floorOf(mediaTypeAndSize, { mediaType: 'banner', size: '300x600' })?.floorCpm).toBe(970_000);
    expect(floorOf(mediaTypeAndSize, { mediaType: 'banner', size: '160x600' })).toEqual({
      rule: 'banner|*',
      floorCpm: 540_000,
    });
    expect(floorOf(mediaTypeAndSize, { mediaType: 'video', size: '1152x648' })?.floorCpm).toBe(11_760_000);
    expect(floorOf(mediaTypeAndSize, { mediaType: 'video', size: '1920x1080' })?.floorCpm).toBe(4_550_000);
    expect(floorOf(mediaTypeAndSize, { mediaType: 'native', size: '300x250' })).toEqual({
      rule: '*|*',
      floorCpm: 300_000,
    });
    // several sizes on the ad unit: size is `*`, so only the media type's catch-all can match
    expect(floorOf(mediaTypeAndSize, { mediaType: 'banner' })?.rule).toBe('banner|*');
  });

  it('the default applies when no rule matches; with neither there is no floor', () => {
    const noCatchAll: FloorRulesInput = { ...mediaTypeAndSize, values: { 'banner|300x250': 0.86 } };
    expect(floorOf(noCatchAll, { mediaType: 'video', size: '640x480' })).toEqual({ rule: null, floorCpm: 10_000 });
    expect(floorOf({ ...noCatchAll, default: undefined }, { mediaType: 'video', size: '640x480' })).toBeNull();
  });

  // The docs' three-field example (ad slot, media type, size) lists the order rules are tried in:
  // fewer `*` first; among the same number, a `*` in a later field before one in an earlier field.
  it('three fields: the documented order of tries', () => {
    expect(wildcardOrder(3)).toEqual([
      0b000, // slot|banner|728x90
      0b100, // slot|banner|*
      0b010, // slot|*|728x90
      0b001, // *|banner|728x90
      0b110, // slot|*|*
      0b101, // *|banner|*
      0b011, // *|*|728x90
      0b111, // *|*|*
    ]);
    const r: FloorRulesInput = {
      schema: { fields: ['domain', 'mediaType', 'size'] },
      values: {
        'www.example.com|*|728x90': 2.0,
        '*|banner|728x90': 1.5,
        'www.example.com|*|*': 1.2,
        '*|banner|*': 1.0,
        '*|*|*': 0.5,
      },
    };
    const facts = { domain: 'www.example.com', mediaType: 'banner', size: '728x90' };
    // both have one `*`: the one whose `*` is in the later field wins
    expect(floorOf(r, facts)).toEqual({ rule: 'www.example.com|*|728x90', floorCpm: 2_000_000 });
    expect(floorOf(r, { ...facts, size: '300x250' })).toEqual({ rule: 'www.example.com|*|*', floorCpm: 1_200_000 });
    expect(floorOf(r, { ...facts, domain: 'other.com' })).toEqual({ rule: '*|banner|728x90', floorCpm: 1_500_000 });
    expect(floorOf(r, { ...facts, domain: 'other.com', size: '300x250' })?.rule).toBe('*|banner|*');
    expect(floorOf(r, { mediaType: 'video' })?.rule).toBe('*|*|*');
  });

  it('values and rule keys compare case-insensitively; a custom delimiter splits the keys', () => {
    const r: FloorRulesInput = {
      schema: { fields: ['country', 'deviceType'], delimiter: '^' },
      values: { 'US^SmartTV': 9, 'us^*': 3, '*^*': 1 },
    };
    expect(floorOf(r, { country: 'us', deviceType: 'smarttv' })).toEqual({ rule: 'us^smarttv', floorCpm: 9_000_000 });
    expect(floorOf(r, { country: 'US', deviceType: 'mobile' })?.floorCpm).toBe(3_000_000);
    expect(floorOf(r, { country: 'DE', deviceType: 'smarttv' })?.floorCpm).toBe(1_000_000);
  });

  it('hour of day and deal are fields like the others', () => {
    const r: FloorRulesInput = {
      schema: { fields: ['deal', 'hourOfDay'] },
      values: { 'deal-1|*': 4, '*|20': 2.5, '*|*': 1 },
    };
    expect(floorOf(r, { deal: 'DEAL-1', hourOfDay: '20' })?.floorCpm).toBe(4_000_000);
    expect(floorOf(r, { hourOfDay: '20' })?.floorCpm).toBe(2_500_000);
    expect(floorOf(r, { hourOfDay: '3' })?.floorCpm).toBe(1_000_000);
  });
});

describe('floor rules: validation names what is wrong', () => {
  const issues = (r: unknown) => {
    const p = FloorRules.safeParse(r);
    return p.success ? [] : p.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('a key must have one part per field', () => {
    expect(issues({ schema: { fields: ['mediaType', 'size'] }, values: { banner: 1 } })).toEqual([
      'values.banner: must have 2 parts (mediaType|size), has 1',
    ]);
  });
  it('an unknown field, a field twice, an empty part, a negative floor, another currency', () => {
    expect(issues({ schema: { fields: ['gptSlot'] }, values: {} })[0]).toMatch(/^schema\.fields\.0: must be one of/);
    expect(issues({ schema: { fields: ['size', 'size'] }, values: {} })).toEqual([
      'schema.fields: names a field twice',
    ]);
    expect(issues({ schema: { fields: ['size', 'domain'] }, values: { '|a.com': 1 } })).toEqual([
      'values.|a.com: has no value for size (use * for any)',
    ]);
    expect(issues({ schema: { fields: ['size'] }, values: { '*': -1 } })).toEqual(['values.*: must not be negative']);
    expect(issues({ schema: { fields: ['size'] }, values: {}, currency: 'EUR' })).toEqual(["currency: must be 'USD'"]);
  });
});

describe('floor in force, in words', () => {
  it('names the rule, the default or the static floor', () => {
    expect(floorInForceText({ source: 'channel', rule: 'us|*|*', floorCpm: 7_000_000 })).toBe(
      "$7.00: the channel's floor rule us|*|* (the most specific rule this request matches)",
    );
    expect(floorInForceText({ source: 'account', rule: null, floorCpm: 1_250_000 })).toBe(
      "$1.25: the default of the account's floor rules (no rule matches this request)",
    );
    expect(floorInForceText({ source: 'static', rule: null, floorCpm: 0 })).toBe(
      "No floor: the channel's floor CPM (no floor rule applies to this request)",
    );
  });
});

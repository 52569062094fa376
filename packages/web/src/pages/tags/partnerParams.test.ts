import { describe, expect, it } from 'vitest';
import { PARTNER_BY_ID, validatePartnerParams } from '@adplane/shared';
import {
  PARTNER_OPTIONS,
  missingRequired,
  paramInput,
  partnerFormId,
  partnerParamsToBody,
  partnerParamsToForm,
} from './partnerParams.js';

const pubmatic = PARTNER_BY_ID.get('pubmatic')!;
const appnexus = PARTNER_BY_ID.get('appnexus')!;
const param = (partner: typeof pubmatic, name: string) => partner.params.find((p) => p.name === name)!;

describe('partner parameter form', () => {
  it('picks an input per parameter type', () => {
    expect(paramInput(param(pubmatic, 'publisherId'))).toBe('text');
    expect(paramInput(param(pubmatic, 'acat'))).toBe('tags');
    expect(paramInput(param(pubmatic, 'wrapper'))).toBe('group');
    expect(paramInput(param(pubmatic, 'keywords'))).toBe('json');
    expect(paramInput(param(appnexus, 'placement_id'))).toBe('number');
    expect(paramInput(param(appnexus, 'reserve'))).toBe('number');
    expect(paramInput(param(appnexus, 'position'))).toBe('select');
    expect(paramInput(param(appnexus, 'use_pmt_rule'))).toBe('switch');
    expect(paramInput(param(appnexus, 'private_sizes'))).toBe('json');
  });

  it('sends pubmatic parameters typed as its schema wants, without the empty ones', () => {
    const body = partnerParamsToBody(pubmatic.params, {
      publisherId: ' 156209 ',
      adSlot: 'nw1_app_video@640x480',
      kadfloor: '',
      pmzoneid: undefined,
      acat: ['IAB1', ' IAB2 ', ''],
      wrapper: { profile: 1234, version: null },
      keywords: '[{"key":"genre","value":["drama"]}]',
    });
    expect(body).toEqual({
      publisherId: '156209',
      adSlot: 'nw1_app_video@640x480',
      acat: ['IAB1', 'IAB2'],
      wrapper: { profile: 1234 },
      keywords: [{ key: 'genre', value: ['drama'] }],
    });
    expect(validatePartnerParams('pubmaticP', body)).toEqual({ ok: true, value: body });
  });

  it('sends appnexus numbers as numbers, booleans and enums as they are', () => {
    const body = partnerParamsToBody(appnexus.params, {
      placement_id: 27412356,
      member: '9325',
      reserve: 1.5,
      position: 'above',
      use_pmt_rule: false,
      generate_ad_pod_id: undefined,
      keywords: '',
      private_sizes: '[{"w":300,"h":250}]',
    });
    expect(body).toEqual({
      placement_id: 27412356,
      member: 9325,
      reserve: 1.5,
      position: 'above',
      use_pmt_rule: false,
      private_sizes: [{ w: 300, h: 250 }],
    });
    expect(validatePartnerParams('appnexusP', body).ok).toBe(true);
  });

  it('keeps text for a parameter that takes text or numbers when the text is not a number', () => {
    expect(partnerParamsToBody(appnexus.params, { member: 'acme-9325' })).toEqual({ member: 'acme-9325' });
    expect(partnerParamsToBody(appnexus.params, { keywords: '{"genre":"news"}' })).toEqual({
      keywords: { genre: 'news' },
    });
  });

  it('round-trips stored parameters through the form', () => {
    const stored = {
      publisherId: '161243',
      adSlot: 'slot@300x250',
      acat: ['IAB1'],
      wrapper: { profile: 12, version: 3 },
      keywords: [{ key: 'k', value: ['v'] }],
    };
    const form = partnerParamsToForm(pubmatic.params, stored);
    expect(form).toEqual({
      publisherId: '161243',
      adSlot: 'slot@300x250',
      acat: ['IAB1'],
      wrapper: { profile: 12, version: 3 },
      keywords: '[{"key":"k","value":["v"]}]',
    });
    expect(partnerParamsToBody(pubmatic.params, form)).toEqual(stored);

    const seeded = { placement_id: 27412356, member: '9325', position: 'above', use_pmt_rule: false };
    expect(partnerParamsToForm(appnexus.params, seeded)).toEqual({
      placement_id: 27412356,
      member: 9325,
      position: 'above',
      use_pmt_rule: false,
    });
  });

  it("names the required combination a partner's parameters miss", () => {
    expect(missingRequired(pubmatic, {})).toBe('PubMatic needs publisherId');
    expect(missingRequired(pubmatic, { publisherId: '1' })).toBeNull();
    expect(missingRequired(appnexus, { member: 1 })).toBe('AppNexus needs placement_id, or inv_code + member');
    // An old spelling still satisfies the partner.
    expect(missingRequired(appnexus, { placementId: 5 })).toBeNull();
    expect(missingRequired(appnexus, { inv_code: 'x', member: 1 })).toBeNull();
  });

  it('offers each partner once under the id the server accepts', () => {
    expect(PARTNER_OPTIONS.find((o) => o.label === 'PubMatic')?.value).toBe('pubmaticP');
    expect(new Set(PARTNER_OPTIONS.map((o) => o.value)).size).toBe(PARTNER_OPTIONS.length);
    for (const o of PARTNER_OPTIONS) {
      // Known to the server's catalogue: any complaint is about parameters, never about the partner.
      const result = validatePartnerParams(o.value, {});
      expect(result.ok || result.errors.every((e) => e.field !== 'partner'), o.value).toBe(true);
    }
    expect(partnerFormId('pubmatic')).toBe('pubmaticP');
    expect(partnerFormId('pubmaticP')).toBe('pubmaticP');
    expect(partnerFormId('')).toBe('');
  });
});

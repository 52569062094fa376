import { describe, expect, it } from 'vitest';
import { DEFAULT_SUB_SELLER } from '@adplane/shared';
import { makeProfile } from '../../test/fixtures.js';
import {
  formPathOf,
  formToUpdate,
  isReadOnlyProfile,
  needsApplyConfirmation,
  profileTabs,
  profileToForm,
  tabOfField,
  visibleOptions,
} from './profileForm.js';

describe('profile form model', () => {
  it('shows Options to demand and Sellers JSON to demand and sub', () => {
    expect(profileTabs('demand')).toEqual([
      'common',
      'options',
      'sellers',
      'general',
      'billing',
      'technical',
      'tagParams',
    ]);
    expect(profileTabs('sub')).toEqual(['common', 'sellers', 'general', 'billing', 'technical', 'tagParams']);
    expect(profileTabs('adv')).toEqual(['common', 'general', 'billing', 'technical', 'tagParams']);
    expect(profileTabs('sdk')).toEqual(['common', 'general', 'billing', 'technical', 'tagParams']);
  });

  it('is read-only for sub and adv, or when the server says so', () => {
    expect(isReadOnlyProfile('sub')).toBe(true);
    expect(isReadOnlyProfile('adv')).toBe(true);
    expect(isReadOnlyProfile('demand')).toBe(false);
    expect(isReadOnlyProfile('demand', { readOnly: true })).toBe(true);
  });

  it('shows post-bid options for either post-bid flag and IVT options for showCheckIVT', () => {
    expect(visibleOptions({ showPostbidPix: true, showPostbidWh: false, showCheckIVT: false })).toEqual({
      postbid: true,
      ivt: false,
    });
    expect(visibleOptions({ showPostbidPix: false, showPostbidWh: true, showCheckIVT: true })).toEqual({
      postbid: true,
      ivt: true,
    });
    expect(visibleOptions({ showPostbidPix: false, showPostbidWh: false, showCheckIVT: false })).toEqual({
      postbid: false,
      ivt: false,
    });
  });

  it('asks before applying to all only when the technical contact has a last name', () => {
    expect(needsApplyConfirmation([{ type: 'technical', lastName: 'Smith' }])).toBe(true);
    expect(needsApplyConfirmation([{ type: 'technical', lastName: '  ' }])).toBe(false);
    expect(needsApplyConfirmation([{ type: 'general', lastName: 'Smith' }])).toBe(false);
    expect(needsApplyConfirmation(null)).toBe(false);
  });

  it('completes missing contacts and reads flags as checkboxes', () => {
    const values = profileToForm(makeProfile());
    expect(values.contacts.map((c) => c.type)).toEqual(['general', 'billing', 'technical']);
    expect(values.contacts[0].firstName).toBe('Gina');
    expect(values.contacts[2].lastName).toBe('');
    expect([values.setPostbidAll, values.setCheckIVTAll, values.blockIVT, values.delOldCreatives]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(values.contactExpired?.format('YYYY-MM-DD')).toBe('2027-03-31');
    expect(values.demandSellers).toEqual([{ id: 's1', domain: 'acme.example', name: 'Acme' }]);
    expect(values.subSeller).toEqual({ type: 'INTERMEDIARY', name: '', id: '', active: false, confidential: false });
  });

  it('builds a trimmed demand update with flags as 1 or null', () => {
    const values = profileToForm(makeProfile());
    values.name = '  Acme  ';
    values.contacts[1].firstName = ' Bill ';
    values.tagParams = [' genre ', 'genre', ''];
    values.demandSellers = [{ id: ' s2 ', domain: ' b.example ', name: ' B ' }];
    values.delOldCreatives = true;
    values.blockIVT = false;
    const update = formToUpdate(values, 'demand');
    expect(update.name).toBe('Acme');
    expect(update.contacts?.[1]).toMatchObject({ type: 'billing', firstName: 'Bill' });
    expect(update.tagParams).toEqual(['genre']);
    expect(update.sellersJson).toEqual([{ id: 's2', domain: 'b.example', name: 'B' }]);
    expect([update.setPostbidAll, update.setCheckIVTAll, update.blockIVT, update.delOldCreatives]).toEqual([
      1,
      null,
      null,
      1,
    ]);
    expect(update.contactExpired).toBe('2027-03-31');
    expect(update.timezone).toBe(-5);
  });

  it('sends emptied tag parameters as null and no demand-only fields for other users', () => {
    const values = profileToForm(makeProfile({ type: 'adv', sellersJson: [] }));
    values.tagParams = [];
    values.contactExpired = null;
    const update = formToUpdate(values, 'adv');
    expect(update.tagParams).toBeNull();
    expect(update.contactExpired).toBeNull();
    expect(update).not.toHaveProperty('sellersJson');
    expect(update).not.toHaveProperty('setPostbidAll');
  });

  it("sends a sub user's sellers.json entry with 0/1 switches", () => {
    const values = profileToForm(
      makeProfile({ type: 'sub', sellersJson: { ...DEFAULT_SUB_SELLER, type: 'BOTH', status: 1 } }),
    );
    expect(values.subSeller).toEqual({ type: 'BOTH', name: '', id: '', active: true, confidential: false });
    values.subSeller = { ...values.subSeller, name: ' Pub ', confidential: true };
    expect(formToUpdate(values, 'sub').sellersJson).toEqual({
      type: 'BOTH',
      name: 'Pub',
      id: '',
      status: 1,
      confidential: 1,
    });
  });

  it('places server field errors on their field and tab', () => {
    expect(formPathOf('contacts.1.contactEmail', 'demand')).toEqual(['contacts', 1, 'contactEmail']);
    expect(formPathOf('sellersJson.0.domain', 'demand')).toEqual(['demandSellers', 0, 'domain']);
    expect(formPathOf('sellersJson.status', 'sub')).toEqual(['subSeller', 'active']);
    expect(tabOfField(['contacts', 2, 'lastName'])).toBe('technical');
    expect(tabOfField(['demandSellers', 0, 'id'])).toBe('sellers');
    expect(tabOfField(['blockIVT'])).toBe('options');
    expect(tabOfField(['tagParams', 0])).toBe('tagParams');
    expect(tabOfField(['companyName'])).toBe('common');
  });
});

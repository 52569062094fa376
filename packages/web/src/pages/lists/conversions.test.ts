import { describe, expect, it } from 'vitest';
import { AppListInput } from '@adplane/shared';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { listToBody, listToForm } from './AllowListPage.js';

describe('list form <-> body', () => {
  it('shows the entries one per line', () => {
    const row = {
      id: 1,
      name: 'CTV',
      status: 1,
      archived: false,
      createdAt: '',
      updatedAt: '',
      items: ['com.a.tv', '151908'],
    } as ResourceRow;
    expect(listToForm(row)).toEqual({ name: 'CTV', status: 1, items: 'com.a.tv\n151908' });
  });

  it('sends the lines as an array of entries, without blanks or repeats', () => {
    const body = listToBody('applists', { name: 'CTV', status: 1, items: ' com.a.tv \n\n"151908"\ncom.a.tv\n' });
    expect(body).toEqual({ name: 'CTV', status: 1, items: ['com.a.tv', '151908'] });
    expect(AppListInput.safeParse(body).success).toBe(true);
  });

  it('sends the demand account an admin picked', () => {
    expect(listToBody('publists', { name: 'News', status: 1, items: 'Example.com', tenantId: 3 })).toEqual({
      name: 'News',
      status: 1,
      items: ['example.com'],
      tenantId: 3,
    });
  });
});

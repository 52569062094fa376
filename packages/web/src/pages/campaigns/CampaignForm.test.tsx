import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { type FormInstance } from 'antd';
import { RESOURCES } from '@adplane/shared';
import { schemaFieldErrors } from '../../resources/formErrors.js';
import { makeUser } from '../../test/fixtures.js';
import { renderEntityForm, stubEmptyLists } from '../../test/formHarness.js';
import { CampaignForm } from './CampaignForm.js';
import { campaignDefaults, campaignToBody } from './campaignValues.js';

vi.setConfig({ testTimeout: 20_000 });
stubEmptyLists();

async function bidErrors(form: FormInstance, bid: number | null): Promise<string[]> {
  act(() => form.setFieldValue('bidCpm', bid));
  await act(async () => {
    await form.validateFields(['bidCpm']).catch(() => undefined);
  });
  return form.getFieldError('bidCpm');
}

describe('CampaignForm bid CPM', () => {
  it('says once that an empty bid is missing; a $0.00 or negative bid is left to the schema, which the server applies too', async () => {
    const form = renderEntityForm(CampaignForm, campaignDefaults(), makeUser('demand', { showDsp: true }));
    await screen.findByText('Bid CPM');

    expect(await bidErrors(form, null)).toEqual(['Enter the bid CPM']);
    expect(await bidErrors(form, 2_500_000)).toEqual([]);
    const body = campaignToBody({ ...campaignDefaults(), name: 'c', bidCpm: 0 });
    expect(schemaFieldErrors(RESOURCES.campaigns.schema, body)).toEqual([
      { field: 'bidCpm', message: 'must be greater than 0' },
    ]);
  });

  it("explains the frequency cap switch under it while it is off, and the cap's fields once it is on", async () => {
    const form = renderEntityForm(CampaignForm, campaignDefaults(), makeUser('demand', { showDsp: true }));
    const cap = await screen.findByTestId('campaign-cap');
    const hint = screen.getByText('No cap: a user may see this campaign any number of times');
    // the hint belongs to the switch's own field, right under it
    expect(cap.closest('.ant-form-item')?.contains(hint)).toBe(true);
    act(() => form.setFieldValue(['frequencyCap', 'enabled'], true));
    await waitFor(() =>
      expect(screen.queryByText('No cap: a user may see this campaign any number of times')).toBeNull(),
    );
    expect(screen.getByText('Per (hours)')).toBeTruthy();
  });
});

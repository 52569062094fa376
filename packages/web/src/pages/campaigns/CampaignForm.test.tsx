import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { type FormInstance } from 'antd';
import { RESOURCES } from '@adplane/shared';
import { schemaFieldErrors } from '../../resources/formErrors.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderEntityForm, stubEmptyLists } from '../../test/formHarness.js';
import { CampaignForm } from './CampaignForm.js';
import { campaignDefaults, campaignToBody } from './campaignValues.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = stubEmptyLists();

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

describe('CampaignForm channels', () => {
  it('starts on "All my channels", picks channels for "Only these" and "All but these", and refuses an "Only these" of none in place', async () => {
    const form = renderEntityForm(CampaignForm, campaignDefaults(), makeUser('demand', { showDsp: true }));
    const scope = await screen.findByTestId('campaign-channel-scope');
    const checked = () => scope.querySelector('.ant-radio-button-wrapper-checked')?.textContent;
    expect(checked()).toBe('All my channels');
    expect(screen.getByText('Every channel of the account, those added later too')).toBeTruthy();
    // no picker while it runs everywhere
    expect(screen.queryByText('Runs only on')).toBeNull();

    act(() => form.setFieldValue('channelScope', 'include'));
    await screen.findByText('Runs only on');
    expect(checked()).toBe('Only these');
    // an "Only these" of no channel: the schema refuses it on the picker's field, as the server would
    const none = campaignToBody({ ...form.getFieldsValue(true), name: 'c', bidCpm: 2_000_000, channelIds: [] });
    expect(schemaFieldErrors(RESOURCES.campaigns.schema, none)).toEqual([
      { field: 'channelIds', message: 'must name at least one channel to run on' },
    ]);

    act(() => form.setFieldValue('channelScope', 'exclude'));
    await screen.findByText('Never runs on');
    expect(screen.getByText('Every channel of the account but those picked')).toBeTruthy();

    // back to all: channels picked meanwhile are not sent
    act(() => {
      form.setFieldValue('channelIds', [4, 5]);
      form.setFieldValue('channelScope', 'all');
    });
    const body = campaignToBody({ ...form.getFieldsValue(true), name: 'c', bidCpm: 2_000_000 });
    expect(body).toMatchObject({ channelScope: 'all', channelIds: [] });
    expect(schemaFieldErrors(RESOURCES.campaigns.schema, body)).toEqual([]);
  });

  it('says an "Only these" campaign runs nowhere while every channel picked is paused or archived', async () => {
    fetchMock.mockImplementation(async (input) =>
      jsonResponse(
        String(input).includes('/channels/list')
          ? [
              { id: 4, name: 'Paused CTV', status: 0, archived: false },
              { id: 5, name: 'Live web', status: 1, archived: false },
            ]
          : [],
      ),
    );
    const form = renderEntityForm(
      CampaignForm,
      { ...campaignDefaults(), channelScope: 'include', channelIds: [4] },
      makeUser('demand', { showDsp: true }),
    );
    await screen.findByTestId('campaign-channels-idle');
    act(() => form.setFieldValue('channelIds', [4, 5]));
    await waitFor(() => expect(screen.queryByTestId('campaign-channels-idle')).toBeNull());
  });
});

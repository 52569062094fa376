import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { Form, type FormInstance } from 'antd';
import { clearLists } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { CampaignForm } from './CampaignForm.js';
import { campaignDefaults } from './campaignValues.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  clearLists();
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async () => jsonResponse([]));
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

function Harness({ onForm }: { onForm: (f: FormInstance) => void }) {
  const [form] = Form.useForm();
  onForm(form);
  return (
    <Form form={form} layout="vertical" initialValues={campaignDefaults()}>
      <CampaignForm form={form} row={null} readOnly={false} />
    </Form>
  );
}

async function bidErrors(form: FormInstance, bid: number | null): Promise<string[]> {
  act(() => form.setFieldValue('bidCpm', bid));
  await act(async () => {
    await form.validateFields(['bidCpm']).catch(() => undefined);
  });
  return form.getFieldError('bidCpm');
}

describe('CampaignForm bid CPM', () => {
  it('says once that an empty bid is missing, and that a $0.00 bid is too low', async () => {
    let form!: FormInstance;
    renderWithAuth(<Harness onForm={(f) => (form = f)} />, makeUser('demand', { showDsp: true }));
    await screen.findByText('Bid CPM');

    expect(await bidErrors(form, null)).toEqual(['Enter the bid CPM']);
    expect(await bidErrors(form, 0)).toEqual(['Enter a bid CPM above $0.00']);
    expect(await bidErrors(form, 2_500_000)).toEqual([]);
  });

  it("explains the frequency cap switch under it while it is off, and the cap's fields once it is on", async () => {
    let form!: FormInstance;
    renderWithAuth(<Harness onForm={(f) => (form = f)} />, makeUser('demand', { showDsp: true }));
    const cap = await screen.findByTestId('campaign-cap');
    const hint = screen.getByText('No cap: a user may see this campaign any number of times');
    // the hint belongs to the switch's own field, right under it
    expect(cap.closest('.ant-form-item')?.contains(hint)).toBe(true);
    act(() => form.setFieldValue(['frequencyCap', 'enabled'], true));
    await waitFor(() => expect(screen.queryByText('No cap: a user may see this campaign any number of times')).toBeNull());
    expect(screen.getByText('Per (hours)')).toBeTruthy();
  });
});

import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { Form, type FormInstance } from 'antd';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { stubEmptyLists } from '../../test/formHarness.js';
import { tagToBody, tagToForm } from './index.js';
import { TagForm } from './TagForm.js';

vi.setConfig({ testTimeout: 20_000 });
stubEmptyLists();

const APPNEXUS_TAG = {
  id: 3,
  name: 'AppNexus (Xandr) - web outstream - Prebid',
  status: 1,
  archived: false,
  uid: 'a1',
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
  integration: 'PreBid',
  vastUrl: '',
  endpoint: '',
  partner: 'appnexus',
  partnerParams: { placement_id: 27412356, member: '9325', position: 'above', use_pmt_rule: false },
  price: { type: 'revshare', percent: 90 },
  floorCpm: 2_000_000,
  timeoutMs: 800,
  qpsLimit: 'unlimited',
  dailyRequestCap: 20_000,
  dailyImpCap: 0,
  priority: 4,
  targetingId: null,
  advertiserId: null,
} satisfies ResourceRow;

function Harness({ onForm }: { onForm: (f: FormInstance) => void }) {
  const [form] = Form.useForm();
  onForm(form);
  return (
    <Form form={form} layout="vertical" initialValues={tagToForm(APPNEXUS_TAG)}>
      <TagForm form={form} row={APPNEXUS_TAG} readOnly={false} />
    </Form>
  );
}

describe('TagForm with a PreBid partner', () => {
  it("builds the partner's form from its parameters and sends them typed", async () => {
    let form!: FormInstance;
    renderWithAuth(<Harness onForm={(f) => (form = f)} />, makeUser('demand'));

    expect(await screen.findByTestId('partner-params')).toBeTruthy();
    // The stored bidder code shows as the partner's Prebid variant.
    expect(screen.getByText('AppNexus')).toBeTruthy();
    const placement = screen.getByTestId('param-partnerParams_placement_id');
    const placementInput = (
      placement.tagName === 'INPUT' ? placement : placement.querySelector('input')
    ) as HTMLInputElement;
    expect(placementInput.getAttribute('role')).toBe('spinbutton');
    expect(placementInput.value).toBe('27412356');
    expect(document.querySelector('#partnerParams_use_pmt_rule')?.getAttribute('role')).toBe('switch');
    expect(document.querySelector('#partnerParams_position')?.getAttribute('role')).toBe('combobox');
    // Deprecated spellings are tucked away.
    expect(screen.queryByText('placementId')).toBeNull();
    expect(screen.getByText('placement_id')).toBeTruthy();
    expect(screen.getByText(/Show \d+ deprecated parameters/)).toBeTruthy();

    fireEvent.change(placementInput, { target: { value: '555' } });
    fireEvent.click(document.querySelector('#partnerParams_use_pmt_rule')!);
    let values: Record<string, unknown> = {};
    await act(async () => {
      values = (await form.validateFields()) as Record<string, unknown>;
    });
    const body = tagToBody(values);
    expect(body).toMatchObject({
      integration: 'PreBid',
      partner: 'appnexusP',
      price: { type: 'revshare', percent: 90 },
    });
    // 'unlimited' and a real 0 come back as they were.
    expect(body).toMatchObject({ qpsLimit: 'unlimited', dailyRequestCap: 20_000, dailyImpCap: 0 });
    expect(body.partnerParams).toEqual({ placement_id: 555, member: 9325, position: 'above', use_pmt_rule: true });
    expect(body).not.toHaveProperty('vastUrl');
  });

  it('names the parameters a partner needs when none is set', async () => {
    let form!: FormInstance;
    renderWithAuth(<Harness onForm={(f) => (form = f)} />, makeUser('demand'));
    await screen.findByTestId('partner-params');
    act(() => form.setFieldValue('partnerParams', {}));
    await act(async () => {
      await form.validateFields().catch(() => undefined);
    });
    await waitFor(() =>
      expect(screen.getAllByText('AppNexus needs placement_id, or inv_code + member').length).toBeGreaterThan(0),
    );
  });
});

describe('TagForm with an RTB partner', () => {
  const RTB_TAG = {
    ...APPNEXUS_TAG,
    id: 42,
    integration: 'RTB',
    endpoint: 'https://bid.dsp.example/ortb',
    partner: '',
    partnerParams: {},
    userSyncUrl: 'https://sync.dsp.example/u?redir=${REDIRECT}',
  } satisfies ResourceRow;

  it("offers the partner's user sync URL, sends it, and shows where the partner sends the browser back", async () => {
    let form!: FormInstance;
    function RtbHarness() {
      const [f] = Form.useForm();
      form = f;
      return (
        <Form form={f} layout="vertical" initialValues={tagToForm(RTB_TAG)}>
          <TagForm form={f} row={RTB_TAG} readOnly={false} />
        </Form>
      );
    }
    renderWithAuth(
      <RtbHarness />,
      makeUser('demand', { config: { host: 'https://ads.example.com', landing: '', database: 'default' } }),
    );
    const input = (await screen.findByTestId('tag-sync-url')) as HTMLInputElement;
    expect(input.value).toBe('https://sync.dsp.example/u?redir=${REDIRECT}');
    expect(screen.getByTestId('tag-setuid-url').textContent).toBe(
      'https://ads.example.com/setuid?bidder=adplane_tag_42&uid=$UID',
    );
    fireEvent.change(input, { target: { value: 'https://sync.dsp.example/other?r=${REDIRECT}' } });
    await waitFor(() => expect(form.getFieldValue('userSyncUrl')).toBe('https://sync.dsp.example/other?r=${REDIRECT}'));
    expect(tagToBody(form.getFieldsValue(true) as Record<string, unknown>)).toMatchObject({
      integration: 'RTB',
      endpoint: 'https://bid.dsp.example/ortb',
      userSyncUrl: 'https://sync.dsp.example/other?r=${REDIRECT}',
    });
    // another integration sends no sync URL
    expect(tagToBody({ ...RTB_TAG, integration: 'VAST', vastUrl: 'https://v.example/tag' })).not.toHaveProperty(
      'userSyncUrl',
    );
  });
});

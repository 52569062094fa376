import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form } from 'antd';
import { renderWithAuth } from '../../test/render.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { SupplierForm, supplierDefaults } from './SupplierForm.js';

vi.setConfig({ testTimeout: 20_000 });

const writeText = vi.fn<(text: string) => Promise<void>>(async () => undefined);

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async () => jsonResponse([])),
  );
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});

afterEach(() => {
  vi.unstubAllGlobals();
  writeText.mockClear();
});

const user = makeUser('demand', {
  showDsp: true,
  config: { host: 'https://ads.example.com', landing: '', database: 'default' },
});

function Harness({ row, readOnly = false }: { row: ResourceRow | null; readOnly?: boolean }) {
  const [form] = Form.useForm();
  return (
    <Form form={form} layout="vertical" disabled={readOnly} initialValues={supplierDefaults()}>
      <SupplierForm form={form} row={row} readOnly={readOnly} />
    </Form>
  );
}

const row = {
  id: 3,
  name: 'Tidewater SSP',
  status: 1,
  archived: true,
  uid: '9f3a1c2b7d4e5f60',
  createdAt: '',
  updatedAt: '',
} as ResourceRow;

describe('<SupplierForm>', () => {
  it('shows the bid endpoint of an existing supplier and copies it, even in a read-only drawer', async () => {
    renderWithAuth(<Harness row={row} readOnly />, user, { mode: 'dsp' });
    expect(screen.getByTestId('supplier-endpoint').textContent).toBe(
      'https://ads.example.com/rtb/bid/9f3a1c2b7d4e5f60',
    );
    fireEvent.click(screen.getByTestId('supplier-endpoint-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('https://ads.example.com/rtb/bid/9f3a1c2b7d4e5f60'));
  });

  it('offers the sync pixel of an existing supplier with the privacy macros, and copies it', async () => {
    renderWithAuth(<Harness row={row} readOnly />, user, { mode: 'dsp' });
    const pixel =
      'https://ads.example.com/rtb/sync/9f3a1c2b7d4e5f60?gdpr=${GDPR}&gdpr_consent=${GDPR_CONSENT}&us_privacy=${US_PRIVACY}&gpp=${GPP}&gpp_sid=${GPP_SID}';
    const shown = screen.getByTestId('supplier-sync-pixel');
    expect(shown.textContent).toContain(pixel);
    fireEvent.click(shown.querySelector('.ant-typography-copy')!);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(pixel));
    expect(screen.getByLabelText(/User sync URL/)).toBeTruthy();
  });

  it('says where the endpoint will appear for a new supplier', () => {
    renderWithAuth(<Harness row={null} />, user, { mode: 'dsp' });
    expect(screen.queryByTestId('supplier-sync-pixel')).toBeNull();
    expect(screen.queryByTestId('supplier-endpoint')).toBeNull();
    expect(screen.getByText(/appears here once it is created/)).toBeTruthy();
  });
});

import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen } from '@testing-library/react';
import { Form, type FormInstance } from 'antd';
import { clearLists } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { AUCTION_TYPE_HINTS, DealForm } from './DealForm.js';

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
    <Form form={form} layout="vertical" initialValues={{ auctionType: 1 }}>
      <DealForm form={form} row={null} readOnly={false} />
    </Form>
  );
}

describe('DealForm auction type', () => {
  it('explains the auction type chosen, not always the fixed price', async () => {
    let form!: FormInstance;
    renderWithAuth(<Harness onForm={(f) => (form = f)} />, makeUser('demand', { showDsp: true }));
    expect(await screen.findByText(AUCTION_TYPE_HINTS[1]!)).toBeTruthy();
    act(() => form.setFieldValue('auctionType', 3));
    expect(await screen.findByText(AUCTION_TYPE_HINTS[3]!)).toBeTruthy();
    expect(screen.queryByText(AUCTION_TYPE_HINTS[1]!)).toBeNull();
  });
});

import '../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form, type FormInstance } from 'antd';
import { makeUser } from '../test/fixtures.js';
import { render } from '@testing-library/react';
import { renderWithAuth } from '../test/render.js';
import { MoneyInput, PercentInput } from './fields.js';
import { LengthNote, LimitedInput, trimmed } from './formParts.js';
import { LimitInput } from './unitFields.js';

vi.setConfig({ testTimeout: 20_000 });

/** The amount fields in a form of their own: the form instance, to read what they hold. */
function renderFields(disabled = false): FormInstance {
  let instance!: FormInstance;
  function Harness() {
    const [form] = Form.useForm();
    instance = form;
    return (
      <Form
        form={form}
        disabled={disabled}
        initialValues={{ bid: 2_500_000, budget: 'unlimited', share: 70, note: 'ok' }}
      >
        <Form.Item name="bid" label="Bid">
          <MoneyInput data-testid="bid" />
        </Form.Item>
        <Form.Item name="budget" label="Budget">
          <LimitInput money data-testid="budget" />
        </Form.Item>
        <Form.Item name="share" label="Share">
          <PercentInput data-testid="share" />
        </Form.Item>
        <Form.Item name="url" label="URL" normalize={trimmed}>
          <LimitedInput max={20} data-testid="url" />
        </Form.Item>
      </Form>
    );
  }
  renderWithAuth(<Harness />, makeUser('demand'));
  return instance;
}

const box = (testId: string) => screen.getByTestId(testId) as HTMLInputElement;

describe('amount fields keep what is typed', () => {
  it('keeps a negative amount negative through blur, in micro-dollars, never $0.00', async () => {
    const form = renderFields();
    fireEvent.change(box('bid'), { target: { value: '-5' } });
    fireEvent.blur(box('bid'));
    await waitFor(() => expect(form.getFieldValue('bid')).toBe(-5_000_000));
    expect(box('bid').value).toBe('-5.00');
    fireEvent.change(box('budget'), { target: { value: '-50' } });
    fireEvent.blur(box('budget'));
    await waitFor(() => expect(form.getFieldValue('budget')).toBe(-50_000_000));
    expect(box('budget').value).toBe('-50.00');
  });

  it('reads a cleared amount as no value (a required field then says so), and a cleared budget as unlimited', async () => {
    const form = renderFields();
    fireEvent.change(box('bid'), { target: { value: '' } });
    await waitFor(() => expect(form.getFieldValue('bid')).toBeUndefined());
    fireEvent.change(box('budget'), { target: { value: '12' } });
    await waitFor(() => expect(form.getFieldValue('budget')).toBe(12_000_000));
    fireEvent.change(box('budget'), { target: { value: '' } });
    await waitFor(() => expect(form.getFieldValue('budget')).toBe('unlimited'));
  });

  it('keeps a share above 100 for the schema to refuse, not clamped to 100', async () => {
    const form = renderFields();
    fireEvent.change(box('share'), { target: { value: '150' } });
    fireEvent.blur(box('share'));
    await waitFor(() => expect(form.getFieldValue('share')).toBe(150));
  });
});

describe('text fields with a limit', () => {
  it('keeps a value past the limit whole, shows the count, and trims a pasted URL', async () => {
    const form = renderFields();
    fireEvent.change(box('url'), { target: { value: '  https://example.com/a-long-path \n' } });
    await waitFor(() => expect(form.getFieldValue('url')).toBe('https://example.com/a-long-path'));
    expect(box('url').value).toBe('https://example.com/a-long-path');
    expect(screen.getByText('31 / 20')).toBeTruthy();
  });

  it('shows no count in a read-only (disabled) form', () => {
    renderFields(true);
    expect(screen.queryByText(/\/ 20$/)).toBeNull();
  });

  it('says the limit under a box outside a form (a report name) once the value passes it', () => {
    const { rerender } = render(<LengthNote value={'R'.repeat(100)} max={100} />);
    expect(screen.queryByTestId('length-note')).toBeNull();
    rerender(<LengthNote value={'R'.repeat(101)} max={100} />);
    expect(screen.getByTestId('length-note').textContent).toBe('At most 100 characters');
  });
});

import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form, type FormInstance } from 'antd';
import { emptyTargetingRules, TargetingRules } from '@adplane/shared';
import { renderWithAuth } from '../../test/render.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { BLOCKED_AD_CATEGORIES_HELP, TargetingForm } from './TargetingForm.js';

vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async () => jsonResponse([])),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const user = makeUser('demand');
let formRef: FormInstance | null = null;

function Harness({ rules = emptyTargetingRules(), readOnly = false }: { rules?: TargetingRules; readOnly?: boolean }) {
  const [form] = Form.useForm();
  formRef = form;
  return (
    <Form form={form} layout="vertical" disabled={readOnly} initialValues={{ name: 'Brand safe', status: 1, rules }}>
      <TargetingForm form={form} row={null} readOnly={readOnly} />
    </Form>
  );
}

const blockedTree = () => screen.getByTestId('targeting-blocked-ad-tree');
/** The checkbox of one node of a CheckTree (`tree-node-<key>` is set on each tree node). */
const nodeCheckbox = (tree: HTMLElement, key: string) =>
  tree.querySelector(`[data-testid="tree-node-${key}"] .ant-tree-checkbox`);

describe('<TargetingForm> blocked ad categories', () => {
  it('offers "Blocked ad categories" beside the content categories, saying it refuses ads, not requests', () => {
    renderWithAuth(<Harness />, user);
    expect(screen.getByText('Blocked ad categories')).toBeTruthy();
    expect(screen.getByText(BLOCKED_AD_CATEGORIES_HELP)).toBeTruthy();
    expect(BLOCKED_AD_CATEGORIES_HELP).toMatch(/refuses ads, not requests/);
    expect(screen.getByText(/a request outside these categories is refused/)).toBeTruthy();
  });

  it('blocks a top-level category as that code alone, in the list the schema takes, leaving the content rule as it was', async () => {
    renderWithAuth(<Harness />, user);
    const box = nodeCheckbox(blockedTree(), 'IAB7');
    expect(box, 'IAB7 node rendered').toBeTruthy();
    fireEvent.click(box!);
    await waitFor(() => expect(formRef!.getFieldValue(['rules', 'blockedAdCategories'])).toEqual(['IAB7']));
    expect(formRef!.getFieldValue(['rules', 'iabCategories'])).toEqual({ mode: 'include', values: [] });
    expect(screen.getByTestId('targeting-blocked-ad-tree-chips').textContent).toContain('Health & Fitness');
    await waitFor(() => expect(screen.getByTestId('targeting-summary').textContent).toBe('Blocked ads: 1'));
    expect(screen.getByTestId('targeting-tab-content').textContent).toContain('(1)');
    // what the form holds is what the API takes
    const saved = TargetingRules.safeParse(formRef!.getFieldValue('rules'));
    expect(saved.success && saved.data.blockedAdCategories).toEqual(['IAB7']);
  });

  it('shows a saved list as chips and clears it', async () => {
    renderWithAuth(<Harness rules={TargetingRules.parse({ blockedAdCategories: ['IAB25-3', 'IAB26'] })} />, user);
    const chips = screen.getByTestId('targeting-blocked-ad-tree-chips');
    expect(chips.textContent).toContain('Non-Standard Content > Pornography');
    expect(chips.textContent).toContain('Illegal Content (all 4)');
    fireEvent.click(screen.getByTestId('targeting-blocked-ad-tree-clear'));
    await waitFor(() => expect(formRef!.getFieldValue(['rules', 'blockedAdCategories'])).toEqual([]));
  });
});

import '../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { DatePicker, Form, Input, InputNumber, Radio, Select } from 'antd';
import { type ComponentType, useEffect, useState } from 'react';
import { RESOURCES } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { FormSection, NameStatusRow } from './formParts.js';
import { type DrawerState, ResourceDrawer, type ResourceFormProps } from './ResourceDrawer.js';
import { type ResourceApi, type ResourceRow } from './resourceApi.js';

vi.setConfig({ testTimeout: 20_000 });

const ROW: ResourceRow = {
  id: 5,
  name: 'Harbor Video - Roku CTV preroll',
  status: 1,
  archived: false,
  uid: 'ab12',
  createdAt: '2026-11-01T10:00:00Z',
  updatedAt: '2026-11-02T10:00:00Z',
  domain: 'harborvideo.test',
  environment: 'ctv',
};

function fakeApi(row: ResourceRow): ResourceApi {
  return {
    get: vi.fn(async () => row),
    update: vi.fn(async (_id: number, body: Record<string, unknown>) => ({ ...row, ...body })),
    create: vi.fn(async (body: Record<string, unknown>) => ({ ...row, ...body })),
  } as unknown as ResourceApi;
}

/** A form of `sections` titled sections, the first with the name, a domain and a choice. */
function formWith(sections: number) {
  return function Body() {
    return (
      <>
        <FormSection title="Basics">
          <NameStatusRow testId="name" />
          <Form.Item name="domain" label="Domain">
            <Input placeholder="example.com" data-testid="domain" />
          </Form.Item>
          <Form.Item name="environment" label="Environment">
            <Radio.Group
              optionType="button"
              options={[
                { value: 'web', label: 'Web' },
                { value: 'ctv', label: 'CTV' },
              ]}
            />
          </Form.Item>
        </FormSection>
        {Array.from({ length: sections - 1 }, (_, i) => (
          <FormSection key={i} title={`Part ${i + 2}`}>
            <p>fields of part {i + 2}</p>
          </FormSection>
        ))}
      </>
    );
  };
}

function renderDrawer(options: {
  readOnly: boolean;
  sections?: number;
  row?: ResourceRow;
  body?: ComponentType<ResourceFormProps>;
  onClose?: () => void;
}) {
  const state: DrawerState = { open: true, id: (options.row ?? ROW).id };
  const onClose = options.onClose ?? vi.fn();
  renderWithAuth(
    <ResourceDrawer
      // (a kind no other kind references: its drawer has no Used by section besides the form's own)
      def={RESOURCES.campaigns}
      api={fakeApi(options.row ?? ROW)}
      state={state}
      readOnly={options.readOnly}
      FormBody={options.body ?? formWith(options.sections ?? 2)}
      defaults={() => ({})}
      onClose={onClose}
      onSaved={() => undefined}
    />,
    makeUser('demand'),
  );
  return { onClose };
}

describe('ResourceDrawer: the footer', () => {
  it('puts Cancel and Save in the footer, outside the scrolling body', async () => {
    renderDrawer({ readOnly: false });
    const save = await screen.findByTestId('resource-save');
    const footer = screen.getByTestId('resource-drawer-footer');
    expect(footer.contains(save)).toBe(true);
    expect(footer.contains(screen.getByTestId('resource-cancel'))).toBe(true);
    expect(footer.closest('.ant-drawer-footer')).not.toBeNull();
    expect(footer.closest('.ant-drawer-body')).toBeNull();
    expect(screen.queryByTestId('form-readonly')).toBeNull();
    expect(document.querySelector('.ant-form-item-required:not(.ant-form-item-required-mark-hidden)')).not.toBeNull();
  });
});

describe('ResourceDrawer: the read-only view', () => {
  it('shows the values as borderless text with a banner, and Close instead of Save', async () => {
    renderDrawer({ readOnly: true });
    const name = (await screen.findByTestId('name')) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe(ROW.name));
    expect(screen.getByTestId('form-readonly-banner').textContent).toContain('View only');
    expect(screen.getByTestId('form-readonly-banner').textContent).toContain('but not change it');
    expect(screen.queryByTestId('resource-save')).toBeNull();
    expect(screen.getByTestId('resource-close')).toBeTruthy();
    // Nothing can be typed, and the box that invites typing is gone.
    expect(name.disabled).toBe(true);
    expect(name.className).toContain('ant-input-borderless');
    expect(name.className).not.toContain('ant-input-outlined');
    expect(name.closest('.form-readonly')).not.toBeNull();
    // No required marks on a form nobody fills in.
    expect(document.querySelector('.ant-form-item-required:not(.ant-form-item-required-mark-hidden)')).toBeNull();
  });

  it('says why an archived row cannot be changed', async () => {
    renderDrawer({ readOnly: true, row: { ...ROW, archived: true } });
    await waitFor(() =>
      expect(screen.getByTestId('form-readonly-banner').textContent).toContain('archived: restore it'),
    );
  });
});

/**
 * A form of every kind of field, as the entity forms write them: some with a placeholder of their own
 * (a hint for typing), some without; one field appears only after the form has rendered (as a field
 * shown by another's value, or a tab's fields, do).
 */
function EveryKindOfField() {
  const [later, setLater] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setLater(true), 0);
    return () => clearTimeout(timer);
  }, []);
  const options = [
    { value: 'ctv', label: 'CTV' },
    { value: 'web', label: 'Web' },
  ];
  return (
    <>
      <NameStatusRow testId="name" />
      <Form.Item name="domain" label="Domain">
        <Input placeholder="example.com" />
      </Form.Item>
      <Form.Item name="contact" label="Contact">
        <Input />
      </Form.Item>
      <Form.Item name="notes" label="Notes">
        <Input.TextArea />
      </Form.Item>
      <Form.Item name="endDate" label="End date">
        <DatePicker placeholder="No end date" />
      </Form.Item>
      <Form.Item name="cap" label="Cap">
        <InputNumber placeholder="Unlimited" />
      </Form.Item>
      <Form.Item name="targetingId" label="Targeting">
        <Select placeholder="None (all traffic)" options={options} />
      </Form.Item>
      <Form.Item name="ivtIds" label="Pixels">
        <Select mode="multiple" options={options} />
      </Form.Item>
      <Form.Item name="environment" label="Environment">
        <Select options={options} />
      </Form.Item>
      <Form.Item label="Find">
        <Input.Search placeholder="Find a country" />
      </Form.Item>
      <p>
        Check a domain: <Input placeholder="publisher.com" aria-label="Domain to check" />
      </p>
      {later && (
        <Form.Item name="appBundle" label="App bundle">
          <Input placeholder="com.example.app" />
        </Form.Item>
      )}
    </>
  );
}

/** The form item of a label, once the drawer has loaded the row. */
async function fieldOf(label: string): Promise<HTMLElement> {
  const item = (await screen.findByText(label, { selector: 'label' })).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no field labelled ${label}`);
  return item;
}

const placeholderOf = async (label: string) =>
  (await fieldOf(label)).querySelector<HTMLInputElement | HTMLTextAreaElement>('input, textarea')?.placeholder;
const selectPlaceholderOf = async (label: string) =>
  (await fieldOf(label)).querySelector('.ant-select-placeholder')?.textContent;

describe('ResourceDrawer: empty fields', () => {
  const row: ResourceRow = { ...ROW, domain: '', environment: 'ctv' };

  it("shows the console's empty mark in every empty field of the read-only view, whatever the form gave as placeholder", async () => {
    renderDrawer({ readOnly: true, row, body: EveryKindOfField });
    await waitFor(() => expect((screen.getByTestId('name') as HTMLInputElement).value).toBe(ROW.name));
    // text inputs (with and without a hint of their own), a text area, a date picker, a number
    for (const label of ['Domain', 'Contact', 'Notes', 'End date', 'Cap']) {
      expect(await placeholderOf(label), label).toBe('—');
      expect((await fieldOf(label)).querySelector<HTMLInputElement>('input, textarea')?.value, label).toBe('');
    }
    // selects, single and multiple, with and without a hint
    expect(await selectPlaceholderOf('Targeting')).toBe('—');
    expect(await selectPlaceholderOf('Pixels')).toBe('—');
    // a field that appears later gets the mark too
    await waitFor(async () => expect(await placeholderOf('App bundle')).toBe('—'));
    // filled fields show their values, not the mark
    expect((await fieldOf('Environment')).textContent).toContain('CTV');
    expect((await fieldOf('Environment')).querySelector('.ant-select-placeholder')).toBeNull();
    // a search box, or a tool outside the fields, holds no value: it keeps its own hint (hidden in the read-only view)
    expect(await placeholderOf('Find')).toBe('Find a country');
    expect(screen.getByLabelText('Domain to check').getAttribute('placeholder')).toBe('publisher.com');
  });

  it('keeps the own placeholders of an editable form', async () => {
    renderDrawer({ readOnly: false, row, body: EveryKindOfField });
    await waitFor(() => expect((screen.getByTestId('name') as HTMLInputElement).value).toBe(ROW.name));
    expect(await placeholderOf('Domain')).toBe('example.com');
    expect(await placeholderOf('Contact')).toBe('');
    expect(await placeholderOf('End date')).toBe('No end date');
    expect(await placeholderOf('Cap')).toBe('Unlimited');
    expect(await selectPlaceholderOf('Targeting')).toBe('None (all traffic)');
    expect(await selectPlaceholderOf('Pixels')).toBe('');
    expect(await placeholderOf('App bundle')).toBe('com.example.app');
    expect(document.body.textContent).not.toContain('—');
  });
});

describe('ResourceDrawer: jump links', () => {
  it('lists the sections of a long form', async () => {
    renderDrawer({ readOnly: false, sections: 5 });
    const links = await screen.findByTestId('form-jump-links');
    expect([...links.querySelectorAll('button')].map((b) => b.textContent)).toEqual([
      'Basics',
      'Part 2',
      'Part 3',
      'Part 4',
      'Part 5',
    ]);
  });

  it('shows no jump links for three sections', async () => {
    renderDrawer({ readOnly: false, sections: 3 });
    await screen.findByTestId('name');
    expect(screen.queryByTestId('form-jump-links')).toBeNull();
  });

  it('scrolls the drawer body to the section of a link', async () => {
    renderDrawer({ readOnly: false, sections: 4 });
    const link = await screen.findByTestId('jump-Part 3');
    const body = document.querySelector('.ant-drawer-body') as HTMLElement;
    const scrollTo = vi.fn();
    body.scrollTo = scrollTo as unknown as typeof body.scrollTo;
    fireEvent.click(link);
    expect(scrollTo).toHaveBeenCalledTimes(1);
    expect(link.getAttribute('aria-current')).toBe('true');
  });

  it("keeps a jump's section marked at the end of the drawer, the last section under it, until the drawer is scrolled by hand", async () => {
    renderDrawer({ readOnly: false, sections: 4 });
    const link = await screen.findByTestId('jump-Part 3');
    const body = document.querySelector('.ant-drawer-body') as HTMLElement;
    body.scrollTo = vi.fn() as unknown as typeof body.scrollTo;
    // jsdom lays nothing out: the body is at its end, and every heading in view.
    fireEvent.click(link);
    fireEvent.scroll(body);
    expect(link.getAttribute('aria-current')).toBe('true');
    fireEvent.wheel(body);
    fireEvent.scroll(body);
    expect(screen.getByTestId('jump-Part 4').getAttribute('aria-current')).toBe('true');
  });
});

describe('ResourceDrawer: Escape', () => {
  it('closes the drawer on Escape', async () => {
    const { onClose } = renderDrawer({ readOnly: false });
    await screen.findByTestId('name');
    act(() => {
      fireEvent.keyDown(window, { key: 'Escape' });
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes the read-only drawer on Escape too', async () => {
    const { onClose } = renderDrawer({ readOnly: true });
    await screen.findByTestId('name');
    act(() => {
      fireEvent.keyDown(window, { key: 'Escape' });
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

import '../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { Form, Input, Radio } from 'antd';
import { RESOURCES } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { FormSection, NameStatusRow } from './formParts.js';
import { type DrawerState, ResourceDrawer } from './ResourceDrawer.js';
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

function renderDrawer(options: { readOnly: boolean; sections?: number; row?: ResourceRow; onClose?: () => void }) {
  const state: DrawerState = { open: true, id: (options.row ?? ROW).id };
  const onClose = options.onClose ?? vi.fn();
  renderWithAuth(
    <ResourceDrawer
      def={RESOURCES.channels}
      api={fakeApi(options.row ?? ROW)}
      state={state}
      readOnly={options.readOnly}
      FormBody={formWith(options.sections ?? 2)}
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
    await waitFor(() => expect(screen.getByTestId('form-readonly-banner').textContent).toContain('archived: restore it'));
  });
});

describe('ResourceDrawer: jump links', () => {
  it('lists the sections of a long form', async () => {
    renderDrawer({ readOnly: false, sections: 5 });
    const links = await screen.findByTestId('form-jump-links');
    expect([...links.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Basics', 'Part 2', 'Part 3', 'Part 4', 'Part 5']);
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

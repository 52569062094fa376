import '../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { DatePicker, Form, Input } from 'antd';
import { RESOURCES } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { MoneyInput } from './fields.js';
import { NameStatusRow, trimmed } from './formParts.js';
import { type DrawerState, ResourceDrawer } from './ResourceDrawer.js';
import { type ResourceApi, type ResourceRow } from './resourceApi.js';
import { LimitInput } from './unitFields.js';

vi.setConfig({ testTimeout: 20_000 });

const ROW: ResourceRow = {
  id: 9,
  name: 'SpotX VAST',
  status: 1,
  archived: false,
  uid: 'cd34',
  createdAt: '2026-11-01T10:00:00Z',
  updatedAt: '2026-11-02T10:00:00Z',
  integration: 'VAST',
  vastUrl: 'https://ads.example.com/vast',
  floorCpm: 3_000_000,
  qpsLimit: 'unlimited',
};

/** A demand tag's form as the tags page writes it, with a date picker beside (a field the schema does not read). */
function TagBody() {
  return (
    <>
      <NameStatusRow testId="name" />
      <Form.Item name="vastUrl" normalize={trimmed} label="VAST URL">
        <Input data-testid="vast-url" />
      </Form.Item>
      <Form.Item name="floorCpm" label="Floor CPM">
        <MoneyInput data-testid="floor" />
      </Form.Item>
      <Form.Item name="qpsLimit" label="QPS limit">
        <LimitInput data-testid="qps" />
      </Form.Item>
      <Form.Item name="reviewOn" label="Review on">
        <DatePicker data-testid="review-on" />
      </Form.Item>
    </>
  );
}

function renderDrawer(readOnly = false) {
  const api = {
    get: vi.fn(async () => ROW),
    update: vi.fn(async (_id: number, body: Record<string, unknown>) => ({ ...ROW, ...body })),
    create: vi.fn(async (body: Record<string, unknown>) => ({ ...ROW, ...body })),
  } as unknown as ResourceApi;
  const state: DrawerState = { open: true, id: ROW.id };
  const onClose = vi.fn();
  renderWithAuth(
    <ResourceDrawer
      def={RESOURCES.tags}
      api={api}
      state={state}
      readOnly={readOnly}
      FormBody={TagBody}
      defaults={() => ({})}
      onClose={onClose}
      onSaved={() => undefined}
    />,
    makeUser('demand'),
  );
  return { onClose, api };
}

async function loaded(): Promise<HTMLInputElement> {
  const name = (await screen.findByTestId('name')) as HTMLInputElement;
  await waitFor(() => expect(name.value).toBe(ROW.name));
  return name;
}

const escape = (target: Element | Window = window) =>
  act(() => {
    fireEvent.keyDown(target, { key: 'Escape' });
  });

/** The confirm's buttons are on screen (its title is written twice, once for screen readers). */
const asked = () => screen.findByRole('button', { name: 'Keep editing' });
const confirmButtons = (name: string) => screen.queryAllByRole('button', { name });
const notAsked = () => expect(screen.queryByRole('button', { name: 'Keep editing' })).toBeNull();

const itemOf = (testId: string) => screen.getByTestId(testId).closest('.ant-form-item') as HTMLElement;
const errorsOf = (testId: string) =>
  [...itemOf(testId).querySelectorAll('.ant-form-item-explain-error')].map((e) => e.textContent);

describe('ResourceDrawer: closing with unsaved changes', () => {
  it('closes at once when nothing was changed: Escape, the close X and Cancel', async () => {
    const { onClose } = renderDrawer();
    await loaded();
    escape();
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByTestId('resource-cancel'));
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledTimes(3);
    notAsked();
  });

  it('asks before Escape discards a change: Keep editing keeps the form as typed, Discard closes', async () => {
    const { onClose } = renderDrawer();
    const name = await loaded();
    fireEvent.change(name, { target: { value: 'SpotX VAST - CTV' } });
    escape();
    expect(screen.getAllByText('Discard unsaved changes?').length).toBeGreaterThan(0);
    fireEvent.click(await asked());
    expect(onClose).not.toHaveBeenCalled();
    expect(name.value).toBe('SpotX VAST - CTV');

    // Cancel asks again (a second confirm: jsdom never ends the first one's closing motion)
    fireEvent.click(screen.getByTestId('resource-cancel'));
    await waitFor(() => expect(confirmButtons('Discard')).toHaveLength(2));
    fireEvent.click(confirmButtons('Discard')[1]!);
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
  });

  it('asks on a click of the mask and of the close X too', async () => {
    const { onClose } = renderDrawer();
    const name = await loaded();
    fireEvent.change(name, { target: { value: 'Changed' } });
    fireEvent.click(document.querySelector('.ant-drawer-mask') as HTMLElement);
    fireEvent.click(await asked());
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(confirmButtons('Keep editing')).toHaveLength(2));
    expect(onClose).not.toHaveBeenCalled();
  });

  it('closes at once when a change was typed back to what was loaded', async () => {
    const { onClose } = renderDrawer();
    const name = await loaded();
    fireEvent.change(name, { target: { value: 'Changed' } });
    fireEvent.change(name, { target: { value: ROW.name } });
    escape();
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes an open date picker on Escape, never the drawer', async () => {
    const { onClose } = renderDrawer();
    const name = await loaded();
    fireEvent.change(name, { target: { value: 'Changed' } });
    const picker = screen.getByTestId('review-on');
    act(() => {
      fireEvent.mouseDown(picker);
      fireEvent.click(picker);
    });
    await waitFor(() =>
      expect(document.querySelector('.ant-picker-dropdown:not(.ant-picker-dropdown-hidden)')).not.toBeNull(),
    );
    escape(picker);
    expect(onClose).not.toHaveBeenCalled();
    notAsked();
    // (that the next Escape is the drawer's, once the panel has gone, is the browser's to show: jsdom
    // never ends the panel's closing motion; e2e/specs/formsKeepWork.spec.ts)
  });

  it('closes a read-only drawer at once', async () => {
    const { onClose } = renderDrawer(true);
    await loaded();
    escape();
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('ResourceDrawer: values refused in place', () => {
  it('keeps a negative amount as typed and says why under it, before Save', async () => {
    const { api } = renderDrawer();
    await loaded();
    const floor = screen.getByTestId('floor');
    fireEvent.change(floor, { target: { value: '-5' } });
    await waitFor(() => expect(errorsOf('floor')).toEqual(['must not be negative']));
    expect((floor as HTMLInputElement).value).toMatch(/^-5(\.00)?$/);
    const qps = screen.getByTestId('qps');
    fireEvent.change(qps, { target: { value: '-100' } });
    await waitFor(() => expect(errorsOf('qps')).toEqual(['must not be negative']));
    // fixed, the message goes
    fireEvent.change(floor, { target: { value: '2.5' } });
    await waitFor(() => expect(errorsOf('floor')).toEqual([]));
    // Save sends nothing while the cap is refused
    fireEvent.click(screen.getByTestId('resource-save'));
    await waitFor(() => expect(errorsOf('qps')).toEqual(['must not be negative']));
    expect(api.update).not.toHaveBeenCalled();
  });

  it('keeps a pasted name past 255 characters whole and refuses it with the limit', async () => {
    renderDrawer();
    const name = await loaded();
    fireEvent.change(name, { target: { value: 'N'.repeat(10_000) } });
    expect(name.value).toHaveLength(10_000);
    await waitFor(() => expect(errorsOf('name')).toContain('At most 255 characters'));
    // the box shows the limit
    expect(itemOf('name').textContent).toContain('10000 / 255');
  });

  it('trims a URL pasted with spaces and a line break around it, and saves it trimmed', async () => {
    const { api } = renderDrawer();
    await loaded();
    fireEvent.change(screen.getByTestId('vast-url'), { target: { value: '  https://ads.example.com/vast2 \n' } });
    expect((screen.getByTestId('vast-url') as HTMLInputElement).value).toBe('https://ads.example.com/vast2');
    fireEvent.click(screen.getByTestId('resource-save'));
    await waitFor(() => expect(api.update).toHaveBeenCalledTimes(1));
    expect(vi.mocked(api.update).mock.calls[0]?.[1]).toMatchObject({ vastUrl: 'https://ads.example.com/vast2' });
  });
});

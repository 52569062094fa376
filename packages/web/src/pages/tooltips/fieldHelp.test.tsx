import '../../test/setup.js';
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form } from 'antd';
import { setList } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { stubEmptyLists } from '../../test/formHarness.js';
import { ChannelForm } from '../channels/ChannelForm.js';
import { channelDefaults } from '../channels/index.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = stubEmptyLists();

function ChannelDrawerBody() {
  const [form] = Form.useForm();
  return (
    <Form form={form} layout="vertical" initialValues={channelDefaults()}>
      <ChannelForm form={form} row={null} readOnly={false} />
    </Form>
  );
}

/** The form item whose label reads `text`. */
function labelOf(text: string): HTMLElement {
  const label = screen
    .getAllByText(text)
    .map((el) => el.closest('label'))
    .find(Boolean);
  if (!label) throw new Error(`no label ${text}`);
  return label;
}

describe('field help from the Tooltips page', () => {
  it('shows (?) with the text beside the field its key names', async () => {
    setList('tooltips', [
      {
        id: 1,
        name: 'channels.floorCpm',
        key: 'channels.floorCpm',
        text: 'The lowest CPM this channel accepts.',
        archived: false,
      },
      { id: 2, name: 'channels.domain', key: 'channels.domain', text: 'Archived help', archived: true },
      { id: 3, name: 'tags.floorCpm', key: 'tags.floorCpm', text: 'Help of the tag form', archived: false },
    ]);
    renderWithAuth(<ChannelDrawerBody />, makeUser('demand'));

    const floor = labelOf('Floor CPM');
    const help = floor.querySelector('[aria-label="help"]');
    expect(help).not.toBeNull();
    expect(labelOf('Domain').querySelector('[aria-label="help"]')).toBeNull();
    expect(labelOf('Name').querySelector('[aria-label="help"]')).toBeNull();

    fireEvent.mouseEnter(help!);
    expect(await screen.findByText('The lowest CPM this channel accepts.')).toBeTruthy();
    expect(screen.queryByText('Help of the tag form')).toBeNull();
  });

  it('loads the tooltips list when it is not cached and shows nothing without one', async () => {
    fetchMock.mockImplementation(async (input) =>
      jsonResponse(
        String(input) === '/api/tooltips/list'
          ? [{ id: 9, name: 'channels.payout', key: 'channels.payout', text: 'What the publisher earns.' }]
          : [],
      ),
    );
    renderWithAuth(<ChannelDrawerBody />, makeUser('demand'));
    await waitFor(() => expect(labelOf('Publisher payout').querySelector('[aria-label="help"]')).not.toBeNull());
    expect(fetchMock.mock.calls.map(([url]) => String(url))).toContain('/api/tooltips/list');
    expect(labelOf('Floor CPM').querySelector('[aria-label="help"]')).toBeNull();
  });
});

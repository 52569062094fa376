import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { channelCampaignsPath } from '@adplane/shared';
import { type ListItem } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { ChannelCampaigns } from './ChannelCampaigns.js';

const fetchMock = vi.fn<typeof fetch>();
vi.setConfig({ testTimeout: 20_000 });

const CHANNEL = 7;
const campaign = (id: number, name: string, channelScope: string, channelIds: number[] = [], extra = {}): ListItem => ({
  id,
  name,
  status: 1,
  archived: false,
  channelScope,
  channelIds,
  ...extra,
});

/** The account's campaigns as the list endpoint answers them; the test changes them after a save. */
let campaigns: ListItem[] = [];
/** The bodies the route was sent. */
let sent: unknown[] = [];
let refuse: string | null = null;

beforeEach(() => {
  campaigns = [
    campaign(1, 'Everywhere', 'all'),
    campaign(2, 'Only elsewhere', 'include', [9]),
    campaign(3, 'All but here', 'exclude', [CHANNEL]),
    campaign(4, 'Only here', 'include', [CHANNEL]),
    campaign(5, 'Paused elsewhere', 'exclude', [9], { status: 0 }),
    campaign(6, 'Old one', 'all', [], { archived: true }),
  ];
  sent = [];
  refuse = null;
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (url, init) => {
    const path = String(url);
    if (path.endsWith('/api/demand/campaigns/list')) return jsonResponse(campaigns);
    if (path.endsWith(channelCampaignsPath(CHANNEL)) && init?.method === 'PUT') {
      const body = JSON.parse(String(init.body)) as { campaignIds: number[] };
      sent.push(body);
      if (refuse) return jsonResponse({ message: refuse, field: 'campaignIds' }, 400);
      // as the server would: "only elsewhere" gains the channel, "everywhere" leaves it
      campaigns = campaigns.map((c) =>
        c.id === 2
          ? { ...c, channelIds: [9, CHANNEL] }
          : c.id === 1
            ? { ...c, channelScope: 'exclude', channelIds: [CHANNEL] }
            : c,
      );
      return jsonResponse({ channelId: CHANNEL, campaignIds: body.campaignIds, changed: [1, 2] });
    }
    return jsonResponse({ message: 'not in this test' }, 404);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

function renderBox(user = makeUser('demand', { showDsp: true }), readOnly = false) {
  renderWithAuth(
    <MemoryRouter>
      <ChannelCampaigns channelId={CHANNEL} channelName="Demo CTV" readOnly={readOnly} />
    </MemoryRouter>,
    user,
  );
}

const box = () => screen.getByTestId('channel-campaigns');
const checkbox = (id: number) => screen.getByTestId(`assign-campaign-${id}`) as HTMLInputElement;

async function openModal() {
  renderBox();
  fireEvent.click(await screen.findByTestId('channel-campaigns-assign'));
  return screen.findByTestId('assign-campaigns');
}

describe('Assign campaigns', () => {
  it("lists the account's live campaigns with their assignment in words, checked where they run here", async () => {
    const modal = await openModal();
    expect(screen.getByText('Campaigns on Demo CTV')).toBeTruthy();
    expect(within(modal).queryByText('Old one')).toBeNull();
    expect(screen.getByTestId('assign-campaign-scope-1').textContent).toBe('all channels');
    expect(screen.getByTestId('assign-campaign-scope-2').textContent).toBe('only some (1)');
    expect(screen.getByTestId('assign-campaign-scope-3').textContent).toBe('all but some (1)');
    expect(screen.getByTestId('assign-campaign-scope-4').textContent).toBe('only this channel');
    expect(screen.getByTestId('assign-campaign-paused-5')).toBeTruthy();
    expect([1, 2, 3, 4, 5].map((id) => checkbox(id).checked)).toEqual([true, false, false, true, true]);
    // running here alone: it stays (left out it would run nowhere)
    expect(checkbox(4).disabled).toBe(true);
    expect(screen.getByTestId('assign-campaigns-summary').textContent).toBe('3 of 5 campaigns run on this channel');
    expect((screen.getByTestId('assign-campaigns-save') as HTMLButtonElement).disabled).toBe(true);
  });

  it('searches by name, keeps what was checked out of sight, saves the checked set and reads the box again', async () => {
    await openModal();
    const search = screen.getByTestId('assign-campaigns-search').querySelector('input')!;
    fireEvent.change(search, { target: { value: 'elsewhere' } });
    await waitFor(() => expect(screen.queryByTestId('assign-campaign-1')).toBeNull());
    fireEvent.click(checkbox(2));
    fireEvent.change(search, { target: { value: '' } });
    await waitFor(() => expect(screen.getByTestId('assign-campaign-1')).toBeTruthy());
    fireEvent.click(checkbox(1));
    expect(screen.getByText('starts here')).toBeTruthy();
    expect(screen.getByText('stops here')).toBeTruthy();
    expect(screen.getByTestId('assign-campaigns-summary').textContent).toBe(
      '3 of 5 campaigns run on this channel after saving (1 start, 1 stop)',
    );

    fireEvent.click(screen.getByTestId('assign-campaigns-save'));
    await waitFor(() => expect(screen.queryByTestId('assign-campaigns')).toBeNull());
    expect(sent).toEqual([{ campaignIds: [2, 4, 5] }]);
    // the box read the campaigns again: "only elsewhere" runs here now, "everywhere" not
    await waitFor(() => expect(within(box()).queryByTestId('channel-campaign-2')).toBeTruthy());
    expect(within(box()).queryByTestId('channel-campaign-1')).toBeNull();
  });

  it("shows the server's refusal and stays open", async () => {
    refuse = "campaignIds: Campaign 'Only here' (4) runs only on this channel";
    await openModal();
    fireEvent.click(checkbox(3));
    fireEvent.click(screen.getByTestId('assign-campaigns-save'));
    expect(await screen.findByText(/runs only on this channel/)).toBeTruthy();
    expect(screen.getByTestId('assign-campaigns')).toBeTruthy();
  });

  it("is offered to the account's users only, and not on an archived channel", async () => {
    renderBox(makeUser('demand', { showDsp: true }), true);
    await waitFor(() => expect(within(box()).getByTestId('channel-campaign-1')).toBeTruthy());
    expect(screen.queryByTestId('channel-campaigns-assign')).toBeNull();
  });

  it('is not offered to a platform admin, who edits campaigns by acting as the account', async () => {
    renderBox(makeUser('admin'));
    await waitFor(() => expect(within(box()).getByTestId('channel-campaign-1')).toBeTruthy());
    expect(screen.queryByTestId('channel-campaigns-assign')).toBeNull();
  });
});

import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { type AuthUser, type Profile } from '@adplane/shared';
import { jsonResponse, makeProfile, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { APPLY_ALL_WARNING } from './profileForm.js';
import { ProfileModal } from './ProfileModal.js';

const fetchMock = vi.fn<typeof fetch>();
// antd modals take a while to mount under jsdom, more so when test files run in parallel.
vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => vi.stubGlobal('fetch', fetchMock));
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

function serve(profile: Profile, onPut?: (body: unknown) => Response) {
  fetchMock.mockImplementation(async (_url, init) => {
    if (init?.method === 'PUT') return onPut ? onPut(JSON.parse(String(init.body))) : jsonResponse(profile);
    return jsonResponse(profile);
  });
}

async function openProfile(
  user: AuthUser,
  profile: Profile,
  extra: { updateUser?: (p: Partial<AuthUser>) => void; onClose?: () => void } = {},
) {
  const onClose = extra.onClose ?? vi.fn();
  renderWithAuth(<ProfileModal open onClose={onClose} />, user, { updateUser: extra.updateUser ?? vi.fn() });
  await screen.findByTestId('profile-form');
  return { onClose };
}

/** antd gives every dialog the same aria id under test, so find a dialog by its title text. */
async function findDialog(title: string): Promise<HTMLElement> {
  const [heading] = await screen.findAllByText(title, { selector: '.ant-modal-title, .ant-modal-confirm-title' });
  const dialog = heading.closest('[role="dialog"]');
  if (!(dialog instanceof HTMLElement)) throw new Error(`no dialog titled ${title}`);
  return dialog;
}

function input(testId: string): HTMLInputElement {
  return screen.getByTestId(testId) as HTMLInputElement;
}

const TECHNICAL = {
  type: 'technical' as const,
  firstName: 'Tom',
  lastName: 'Tech',
  position: '',
  contactPhone: '',
  mobilePhone: '',
  contactEmail: '',
  personalEmail: '',
};

describe('ProfileModal: apply the general contact to all', () => {
  it('asks first when the technical contact has a last name, and copies on OK', async () => {
    const profile = makeProfile({ contacts: [...makeProfile().contacts, TECHNICAL] });
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    expect(input('contact-technical-lastName').value).toBe('Tech');

    fireEvent.click(screen.getByTestId('apply-to-all-contacts'));
    const dialog = await findDialog('Warning');
    expect(within(dialog).getByText(APPLY_ALL_WARNING)).toBeTruthy();
    expect(input('contact-billing-firstName').value).toBe('');

    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(input('contact-billing-firstName').value).toBe('Gina'));
    expect(input('contact-technical-lastName').value).toBe('General');
    expect(input('contact-technical-contactEmail').value).toBe('gina@acme.example');
  });

  it('keeps the contacts when the warning is cancelled', async () => {
    const profile = makeProfile({ contacts: [...makeProfile().contacts, TECHNICAL] });
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    fireEvent.click(screen.getByTestId('apply-to-all-contacts'));
    const dialog = await findDialog('Warning');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    // jsdom never finishes the closing animation, so wait a moment instead of for the dialog to go.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(input('contact-technical-lastName').value).toBe('Tech');
    expect(input('contact-billing-firstName').value).toBe('');
  });

  it('copies at once when the technical contact has no last name', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    fireEvent.click(screen.getByTestId('apply-to-all-contacts'));
    await waitFor(() => expect(input('contact-technical-firstName').value).toBe('Gina'));
    expect(screen.queryByText(APPLY_ALL_WARNING)).toBeNull();
  });
});

describe('ProfileModal: Escape', () => {
  it('closes on Escape (the browser case of its closed Add Tag Parameter dialog is in e2e forms.spec)', async () => {
    const profile = makeProfile();
    serve(profile);
    const { onClose } = await openProfile(makeUser('demand'), profile);
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('asks before Escape or Cancel discards a change; Discard closes', async () => {
    const profile = makeProfile();
    serve(profile);
    const { onClose } = await openProfile(makeUser('demand'), profile);
    fireEvent.change(input('profile-companyName'), { target: { value: 'Harbor Video Group' } });
    fireEvent.keyDown(window, { key: 'Escape' });
    const dialog = await findDialog('Discard unsaved changes?');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' }));
    expect(onClose).not.toHaveBeenCalled();
    expect(input('profile-companyName').value).toBe('Harbor Video Group');
    fireEvent.click(screen.getByTestId('profile-cancel'));
    // the second question (the first one's dialog stays in the document, closed); looked up by its
    // title, as a role query over the whole profile form takes seconds in jsdom
    await waitFor(() =>
      expect(screen.getAllByText('Discard unsaved changes?', { selector: '.ant-modal-confirm-title' })).toHaveLength(2),
    );
    const second = screen.getAllByText('Discard unsaved changes?', { selector: '.ant-modal-confirm-title' })[1]!;
    fireEvent.click(within(second.closest<HTMLElement>('[role="dialog"]')!).getByRole('button', { name: 'Discard' }));
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
  });
});

describe('ProfileModal: read-only users', () => {
  it.each(['sub', 'adv'] as const)(
    'shows the values of %s as text, not greyed inputs, and offers nothing to save',
    async (type) => {
      const profile = makeProfile({
        type,
        sellersJson: type === 'sub' ? { type: 'PUBLISHER', name: 'Pub', id: 'p1', status: 1, confidential: 0 } : [],
      });
      serve(profile);
      await openProfile(makeUser(type), profile);
      expect(screen.getByTestId('profile-form').getAttribute('data-readonly')).toBe('true');
      expect(input('profile-name').disabled).toBe(true);
      expect(input('contact-general-firstName').disabled).toBe(true);
      expect(input('profile-name').className).toContain('ant-input-borderless');
      expect(input('profile-name').closest('.form-readonly')).not.toBeNull();
      expect(screen.getByTestId('form-readonly-banner').textContent).toContain('account manager');
      expect(screen.queryByTestId('apply-to-all-contacts')).toBeNull();
      expect(screen.queryByTestId('tag-param-add')).toBeNull();
      expect(screen.queryByTestId('profile-save')).toBeNull();
      expect(screen.getByTestId('profile-close')).toBeTruthy();
      expect(screen.queryByTestId('profile-tab-options')).toBeNull();
      expect(!!screen.queryByTestId('profile-tab-sellers')).toBe(type === 'sub');
    },
  );

  it("shows a subpublisher's empty fields as the console's empty mark, under sentence-case labels", async () => {
    const blank = {
      firstName: '',
      lastName: '',
      position: '',
      contactPhone: '',
      mobilePhone: '',
      contactEmail: '',
      personalEmail: '',
    };
    const profile = makeProfile({
      type: 'sub',
      companyName: '',
      companyAddress: '',
      contactNumber: '',
      contactExpired: null,
      token: '',
      domain: null,
      contacts: [{ type: 'general', ...blank, firstName: 'Hana' }],
      sellersJson: { type: 'PUBLISHER', name: '', id: '', status: 0, confidential: 0 },
    });
    serve(profile);
    await openProfile(makeUser('sub'), profile);
    for (const id of [
      'profile-companyName',
      'profile-companyAddress',
      'profile-contactNumber',
      'contact-general-lastName',
      'contact-billing-firstName',
      'sub-seller-name',
      'sub-seller-id',
    ]) {
      expect(input(id).value, id).toBe('');
      expect(input(id).placeholder, id).toBe('—');
    }
    expect((document.querySelector('.ant-picker input') as HTMLInputElement).placeholder).toBe('—');
    expect(input('profile-domain').placeholder).toBe('—');
    expect(screen.getByTestId('profile-token').textContent).toBe('—');
    // a filled field shows its value, not the mark
    expect(input('contact-general-firstName').value).toBe('Hana');
    for (const label of [
      'Company name',
      'Company address',
      'Contact number',
      'Contract expires',
      'Time zone',
      'API token',
      'First name',
      'Contact e-mail',
    ]) {
      expect(screen.getAllByText(label).length, label).toBeGreaterThan(0);
    }
    for (const titleCase of ['Company Name', 'Time Zone', 'API Token', 'First Name', 'Contact E-mail'])
      expect(screen.queryByText(titleCase), titleCase).toBeNull();
    expect(screen.getByTestId('profile-tab-general').textContent).toBe('General contact');
    expect(screen.getByTestId('profile-tab-tagParams').textContent).toBe('Tag parameters');
    // what the platform bills is a demand account's business, not a subpublisher's
    expect(screen.queryByTestId('profile-prices')).toBeNull();
  });

  it('keeps editing placeholders off the fields a demand user edits', async () => {
    const profile = makeProfile({ companyAddress: '' });
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    expect(input('profile-companyAddress').placeholder).toBe('');
    expect(screen.getByTestId('profile-prices').textContent).toContain('Platform prices');
  });
});

describe('ProfileModal: demand user', () => {
  it('shows Options with the checkboxes the user flags allow', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand', { showPostbidWh: true }), profile);
    expect(screen.getByTestId('profile-tab-options')).toBeTruthy();
    expect(screen.getByTestId('profile-setPostbidAll')).toBeTruthy();
    expect(screen.queryByTestId('profile-setCheckIVTAll')).toBeNull();
    expect(screen.queryByTestId('profile-blockIVT')).toBeNull();
    expect(screen.getByTestId('profile-delOldCreatives')).toBeTruthy();
    expect(screen.getByTestId('profile-token').textContent).toContain('tok_123');
    expect(screen.queryByTestId('profile-uid')).toBeNull();
  });

  it('shows the uid instead of the token while an admin is acting as the user', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand', { adminId: 1, showCheckIVT: true }), profile);
    expect(input('profile-uid').value).toBe('acme-uid');
    expect(screen.queryByTestId('profile-token')).toBeNull();
    expect(screen.getByTestId('profile-setCheckIVTAll')).toBeTruthy();
    expect(screen.getByTestId('profile-blockIVT')).toBeTruthy();
  });

  it('blocks saving without a name', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    fireEvent.change(input('profile-name'), { target: { value: '   ' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(document.querySelector('.ant-form-item-has-error')).not.toBeNull());
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'PUT')).toHaveLength(0);
  });

  it('refuses a post-bid share past 100 in place with the range, keeping what was typed, and saves nothing', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand', { showPostbidWh: true }), profile);
    const share = input('profile-postbidPercent-input');
    fireEvent.change(share, { target: { value: '150' } });
    fireEvent.blur(share);
    expect(await screen.findByText('must be between 0 and 100')).toBeTruthy();
    expect(share.value).toBe('150');
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(share.closest('.ant-input-number-status-error')).not.toBeNull());
    expect(screen.getByText('must be between 0 and 100')).toBeTruthy();
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'PUT')).toHaveLength(0);
    fireEvent.change(share, { target: { value: '40' } });
    await waitFor(() => expect(screen.queryByText('must be between 0 and 100')).toBeNull());
  });

  it('saves trimmed values, updates the stored timezone and tag parameters, and closes', async () => {
    const profile = makeProfile();
    let sent: Record<string, unknown> | null = null;
    serve(profile, (body) => {
      sent = body as Record<string, unknown>;
      return jsonResponse({ ...profile, name: 'Acme', timezone: 3, tagParams: ['genre'] });
    });
    const updateUser = vi.fn();
    const { onClose } = await openProfile(makeUser('demand'), profile, { updateUser });
    fireEvent.change(input('profile-name'), { target: { value: '  Acme  ' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(sent).toMatchObject({ name: 'Acme', setPostbidAll: 1, setCheckIVTAll: null, tagParams: ['genre'] });
    expect(updateUser).toHaveBeenCalledWith({ timezone: 3, tagParams: ['genre'] });
  });

  it('adds a tag parameter through the sub-dialog, trimmed', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand'), profile);
    fireEvent.click(screen.getByTestId('tag-param-add'));
    const dialog = await findDialog('Add Tag Parameter');
    fireEvent.change(within(dialog).getByTestId('tag-param-name'), { target: { value: '  player_size ' } });
    fireEvent.click(within(dialog).getByTestId('tag-param-ok'));
    await waitFor(() =>
      expect(screen.getAllByTestId('tag-param').map((el) => el.textContent)).toEqual(['genre', 'player_size']),
    );
  });

  it('disables OK of the tag parameter dialog while an admin is impersonating', async () => {
    const profile = makeProfile();
    serve(profile);
    await openProfile(makeUser('demand', { adminId: 1 }), profile);
    fireEvent.click(screen.getByTestId('tag-param-add'));
    const dialog = await findDialog('Add Tag Parameter');
    expect((within(dialog).getByTestId('tag-param-ok') as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows a save failure as 'Error on save' and puts field errors on the fields", async () => {
    const profile = makeProfile();
    serve(profile, () =>
      jsonResponse(
        {
          message: 'Invalid profile',
          field: 'contacts.1.contactEmail',
          errors: [{ field: 'contacts.1.contactEmail', message: 'must be an e-mail address' }],
        },
        400,
      ),
    );
    const { onClose } = await openProfile(makeUser('demand'), profile);
    fireEvent.click(screen.getByTestId('profile-save'));
    expect(await screen.findByText('Error on save')).toBeTruthy();
    expect(await screen.findByText('must be an e-mail address')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });

  it("puts the server's refusal of a taken seller id on that entry's Seller ID, in the Sellers JSON tab", async () => {
    const profile = makeProfile({
      sellersJson: [
        { id: 'own-1', domain: 'one.example', name: 'One' },
        { id: 'p-1', domain: 'two.example', name: 'Two' },
      ],
    });
    const message =
      'is already the seller id of subpublisher Pub: sellers.json gives each seller id to one seller; choose another';
    serve(profile, () =>
      jsonResponse(
        {
          message: `sellersJson.1.id: ${message}`,
          field: 'sellersJson.1.id',
          errors: [{ field: 'sellersJson.1.id', message }],
        },
        400,
      ),
    );
    const { onClose } = await openProfile(makeUser('demand'), profile);
    fireEvent.click(screen.getByTestId('profile-save'));
    expect(await screen.findByText('Error on save')).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('profile-tab-sellers').closest('.ant-tabs-tab')?.className).toContain(
        'ant-tabs-tab-active',
      ),
    );
    const rows = screen.getAllByTestId('sellers-row');
    expect(within(rows[1]).getByText(message)).toBeTruthy();
    expect(within(rows[1]).getByDisplayValue('p-1').closest('.ant-form-item')?.className).toContain(
      'ant-form-item-has-error',
    );
    expect(within(rows[0]).queryByText(message)).toBeNull();
    expect(onClose).not.toHaveBeenCalled();
  });
});

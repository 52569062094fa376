import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { clearLists } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { ContractAlert, ContractNotice, ContractTag, contractSentence } from './contract.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();
let listed: Record<string, unknown>[] = [];

beforeEach(() => {
  clearLists();
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url === '/api/demands/list') return jsonResponse(listed);
    return jsonResponse({ message: `unexpected ${url}` }, 404);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const account = (
  id: number,
  name: string,
  contactExpired: string | null,
  contractState: string | null,
  archived = false,
) => ({
  id,
  name,
  status: 1,
  archived,
  contactExpired,
  contractState,
});

describe('demand account contracts', () => {
  it('says when a contract has ended or is about to, and nothing otherwise', () => {
    expect(contractSentence(account(1, 'A', '2026-10-01', 'expired'))).toBe('Contract expired on 2026-10-01');
    expect(contractSentence(account(1, 'A', '2026-12-10', 'expiring'))).toBe('Contract expires on 2026-12-10');
    expect(contractSentence(account(1, 'A', '2027-06-01', null))).toBeNull();
    expect(contractSentence(account(1, 'A', null, null))).toBeNull();
  });

  it('marks the list cell red once expired, orange while expiring, plain when far off', () => {
    const { container, rerender } = render(<ContractTag row={account(1, 'A', '2026-10-01', 'expired')} />);
    expect(screen.getByTestId('contract-expired').textContent).toBe('Expired 2026-10-01');
    rerender(<ContractTag row={account(1, 'A', '2026-12-10', 'expiring')} />);
    expect(screen.getByTestId('contract-expiring').textContent).toBe('Expires 2026-12-10');
    rerender(<ContractTag row={account(1, 'A', '2027-06-01', null)} />);
    expect(container.textContent).toBe('2027-06-01');
  });

  it("tells the drawer's reader the contract has ended", () => {
    render(<ContractAlert row={account(1, 'A', '2026-10-01', 'expired')} />);
    expect(screen.getByTestId('demand-contract-alert').textContent).toContain('Contract expired on 2026-10-01');
  });

  it('lists the live accounts to renew above the Demands list, archived ones left out', async () => {
    listed = [
      account(1, 'Northwind Media', '2026-10-01', 'expired'),
      account(2, 'Acme Video', '2026-12-10', 'expiring'),
      account(3, 'Far Off', '2027-06-01', null),
      account(4, 'Gone', '2026-01-01', 'expired', true),
    ];
    renderWithAuth(<ContractNotice />, makeUser('admin'));
    expect((await screen.findByTestId('contracts-expired')).textContent).toBe('Expired: Northwind Media (2026-10-01)');
    expect(screen.getByTestId('contracts-expiring').textContent).toBe('Ending within 30 days: Acme Video (2026-12-10)');
  });

  it('shows no notice when every contract is in force', async () => {
    listed = [account(3, 'Far Off', '2027-06-01', null)];
    renderWithAuth(<ContractNotice />, makeUser('admin'));
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.queryByTestId('demands-contracts')).toBeNull();
  });
});

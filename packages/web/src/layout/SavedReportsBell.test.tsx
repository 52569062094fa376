import '../test/setup.js';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SavedReport } from '@adplane/shared';
import { reportsApi } from '../api/reports.js';
import { renderWithAuth } from '../test/render.js';
import { SavedReportsBell } from './SavedReportsBell.js';
import { announceSavedReports, fileWaitText } from './savedReportsFeed.js';

const file = (over: Partial<SavedReport>): SavedReport => ({
  id: 7,
  dt: '2026-11-28 08:00',
  name: 'Year by day',
  file: 1,
  ivt: 0,
  archived: false,
  status: 'running',
  progress: 0,
  error: null,
  request: null,
  ...over,
});

afterEach(() => vi.restoreAllMocks());

describe('a report file waiting in line', () => {
  it('says how many files are ahead of it', () => {
    expect(fileWaitText(2)).toBe('waits: 2 files ahead');
    expect(fileWaitText(1)).toBe('waits: 1 file ahead');
    expect(fileWaitText(0)).toBe('waits: next in line');
  });

  it('shows its place in line in the bell, then its progress once it is being written', async () => {
    vi.spyOn(reportsApi, 'list').mockImplementation((options = {}) =>
      Promise.resolve(options.last === undefined ? [file({ status: 'waiting', ahead: 2 })] : []),
    );
    const get = vi.spyOn(reportsApi, 'get').mockResolvedValue(file({ status: 'running', progress: 40 }));
    renderWithAuth(
      <MemoryRouter>
        <SavedReportsBell />
      </MemoryRouter>,
      null,
    );
    fireEvent.click(screen.getByTestId('bell'));
    expect((await screen.findByTestId('bell-entry-waits-7')).textContent).toBe('waits: 2 files ahead');
    expect(screen.queryByRole('progressbar')).toBeNull();

    // the next poll reads the waiting file again: it started
    act(() => announceSavedReports());
    await waitFor(() => expect(get).toHaveBeenCalledWith(7, { silent: true }));
    await waitFor(() => expect(screen.queryByTestId('bell-entry-waits-7')).toBeNull());
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('40');
  });
});

import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { jsonResponse, makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { ConfigModal } from './ConfigModal.js';

const fetchMock = vi.fn<typeof fetch>();
vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => vi.stubGlobal('fetch', fetchMock));
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

function input(testId: string): HTMLInputElement {
  return screen.getByTestId(testId) as HTMLInputElement;
}

describe('ConfigModal', () => {
  it('loads the config, parses the integers and saves them', async () => {
    const puts: unknown[] = [];
    fetchMock.mockImplementation(async (_url, init) => {
      if (init?.method === 'PUT') {
        puts.push(JSON.parse(String(init.body)));
        return jsonResponse({ ok: true });
      }
      return jsonResponse({ postbidMaxImps: 1_000_000, postbidMaxReps: 25 });
    });
    const onClose = vi.fn();
    renderWithAuth(<ConfigModal open onClose={onClose} />, makeUser('admin'));
    expect(await screen.findByText('Application Config')).toBeTruthy();
    expect(screen.getByText('Postbid Maximum Impression Amount (per month)')).toBeTruthy();
    expect(screen.getByText('Postbid Maximum Report Amount (per month)')).toBeTruthy();
    await waitFor(() => expect(input('config-postbidMaxImps').value).toBe('1,000,000'));
    expect(input('config-postbidMaxReps').value).toBe('25');

    fireEvent.change(input('config-postbidMaxImps'), { target: { value: '2.000 000' } });
    fireEvent.change(input('config-postbidMaxReps'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('config-save'));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/admin/config', '/api/admin/config']);
    expect(puts).toEqual([{ postbidMaxImps: 2_000_000, postbidMaxReps: 0 }]);
    expect(await screen.findByText('Application config saved')).toBeTruthy();
  });

  it('takes no typing before the config has arrived, which would overwrite it', async () => {
    let answer: (r: Response) => void = () => {};
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    renderWithAuth(<ConfigModal open onClose={vi.fn()} />, makeUser('admin'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(input('config-postbidMaxImps').disabled).toBe(true);
    expect(input('config-postbidMaxReps').disabled).toBe(true);
    answer(jsonResponse({ postbidMaxImps: 7, postbidMaxReps: 0 }));
    await waitFor(() => expect(input('config-postbidMaxImps').disabled).toBe(false));
    expect(input('config-postbidMaxImps').value).toBe('7');
  });

  it('refuses a value that is not a whole number', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ postbidMaxImps: 0, postbidMaxReps: 0 }));
    const onClose = vi.fn();
    renderWithAuth(<ConfigModal open onClose={onClose} />, makeUser('admin'));
    await waitFor(() => expect(input('config-postbidMaxImps').value).toBe('0'));
    fireEvent.change(input('config-postbidMaxImps'), { target: { value: '12k' } });
    fireEvent.click(screen.getByTestId('config-save'));
    expect(await screen.findByText('Enter a whole number, e.g. 1,000,000')).toBeTruthy();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(false);
    expect(onClose).not.toHaveBeenCalled();
  });

  it("reports a load failure as 'Error on load data'", async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'Config store unavailable' }, 500));
    renderWithAuth(<ConfigModal open onClose={vi.fn()} />, makeUser('admin'));
    expect(await screen.findByText('Error on load data')).toBeTruthy();
    expect(await screen.findByText('Config store unavailable')).toBeTruthy();
  });

  it('closes at once without changes, and asks before Escape discards a typed limit', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ postbidMaxImps: 10, postbidMaxReps: 5 }));
    const onClose = vi.fn();
    renderWithAuth(<ConfigModal open onClose={onClose} />, makeUser('admin'));
    await waitFor(() => expect(input('config-postbidMaxImps').value).toBe('10'));
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);

    fireEvent.change(input('config-postbidMaxImps'), { target: { value: '20' } });
    fireEvent.keyDown(window, { key: 'Escape' });
    fireEvent.click(await screen.findByRole('button', { name: 'Keep editing' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(input('config-postbidMaxImps').value).toBe('20');
  });
});

import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { vast2Macros, vastMacros } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { TagPreview } from './TagPreview.js';
import { channelTagPreview } from './tagVariants.js';

vi.setConfig({ testTimeout: 20_000 });
const writeText = vi.fn<(text: string) => Promise<void>>(async () => undefined);

beforeEach(() => {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  cleanup();
  writeText.mockClear();
});

const user = makeUser('demand', {
  config: { host: 'https://ads.example.com', landing: '', database: 'default' },
  vastParams: vastMacros([]),
  vast2Params: vast2Macros([]),
});
const model = channelTagPreview({ uid: 'u1', integration: 'VAST', environment: 'web', vastVersion: '4.2' }, user)!;

describe('<TagPreview>', () => {
  it('shows the chosen variant whole and copies exactly what it shows', async () => {
    renderWithAuth(<TagPreview model={model} testId="tag" />, user);
    const code = screen.getByTestId('tag');
    expect(code.textContent).toContain('page_url={{page_url}}');
    expect(code.textContent).not.toContain('device_id');

    fireEvent.click(screen.getByTestId('tag-variant-ctv'));
    await waitFor(() => expect(screen.getByTestId('tag').textContent).toContain('device_type={{device_type}}'));
    expect(screen.getByTestId('tag').textContent).not.toContain('page_url');
    expect(screen.getByTestId('tag-preview').getAttribute('data-variant')).toBe('ctv');

    fireEvent.click(screen.getByTestId('tag-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(screen.getByTestId('tag').textContent));
    await waitFor(() => expect(screen.getByTestId('tag-copy').textContent).toContain('Copied'));
  });

  it('swaps the macros for example values on request', async () => {
    renderWithAuth(<TagPreview model={model} testId="tag" />, user);
    fireEvent.click(screen.getByTestId('tag-example'));
    await waitFor(() => expect(screen.getByTestId('tag').textContent).toContain('domain=example.com'));
    expect(screen.getByTestId('tag').textContent).not.toContain('{{');
  });

  it('shows the tag in another VAST version when one is picked', async () => {
    renderWithAuth(<TagPreview model={model} testId="tag" />, user);
    expect(screen.getByTestId('tag').textContent).not.toContain('vast_version');
    fireEvent.mouseDown(
      screen.getByTestId('tag-version').querySelector('.ant-select-selector') ?? screen.getByTestId('tag-version'),
    );
    fireEvent.click(await screen.findByText('VAST 3.0'));
    await waitFor(() => expect(screen.getByTestId('tag').textContent).toContain('/vast/u1?vast_version=3.0&'));
    expect(screen.getByTestId('tag-preview').textContent).toContain('Asks for VAST 3.0');
  });

  it('offers "Test this tag" with the shown variant only when asked to', () => {
    const onTest = vi.fn();
    renderWithAuth(<TagPreview model={model} testId="tag" onTest={onTest} />, user);
    fireEvent.click(screen.getByTestId('tag-variant-app'));
    fireEvent.click(screen.getByTestId('tag-test'));
    expect(onTest).toHaveBeenCalledWith(expect.objectContaining({ key: 'app', environment: 'app' }));
    cleanup();
    renderWithAuth(<TagPreview model={model} testId="tag" />, user);
    expect(screen.queryByTestId('tag-test')).toBeNull();
  });
});

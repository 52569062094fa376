import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form } from 'antd';
import { CREATIVE_PREVIEW_PATH } from '@adplane/shared';
import { renderWithAuth } from '../../test/render.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { CreativeForm } from './CreativeForm.js';
import { CreativePreview } from './CreativePreview.js';
import { creativeDefaults } from './creativeValues.js';
import { creativePreview } from './creativePreview.js';

vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => {
  // The pickers load shared lists (advertisers, tooltips); an empty list is enough here.
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async () => jsonResponse([])),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const demand = makeUser('demand', { showDsp: true });

describe('<CreativePreview>', () => {
  it('renders an HTML5 video of the first playable media file', () => {
    const model = creativePreview({
      format: 'video',
      videoSource: 'media',
      mediaFiles: [
        { url: 'https://cdn.example.com/spot.m3u8', mime: 'application/x-mpegURL' },
        { url: 'https://cdn.example.com/spot.mp4', mime: 'video/mp4', width: 1920, height: 1080 },
      ],
    });
    renderWithAuth(<CreativePreview model={model} />, demand);
    const video = screen.getByTestId('creative-preview');
    expect(video.tagName).toBe('VIDEO');
    expect(video.getAttribute('src')).toBe('https://cdn.example.com/spot.mp4');
    expect(video.hasAttribute('controls')).toBe(true);
  });

  it('renders a sandboxed frame for HTML, without same-origin access', () => {
    renderWithAuth(<CreativePreview model={{ kind: 'html', html: '<b>ad</b>', width: 320, height: 50 }} />, demand);
    const frame = screen.getByTestId('creative-preview');
    expect(frame.tagName).toBe('IFRAME');
    expect(frame.getAttribute('sandbox')).not.toContain('allow-same-origin');
    expect(frame.getAttribute('sandbox')).not.toContain('allow-popups-to-escape-sandbox');
    // The markup goes to the server's sandboxed preview page by message, not into a srcdoc (which would share the console's CSP).
    expect(frame.getAttribute('src')).toBe(CREATIVE_PREVIEW_PATH);
    expect(frame.getAttribute('srcdoc')).toBeNull();
  });

  it('links a VAST URL and renders no player for it', () => {
    renderWithAuth(<CreativePreview model={{ kind: 'vast', url: 'https://vast.example/tag' }} />, demand);
    expect(screen.getByTestId('creative-preview').closest('a')?.getAttribute('href')).toBe('https://vast.example/tag');
    expect(document.querySelector('video')).toBeNull();
  });
});

function Harness() {
  const [form] = Form.useForm();
  return (
    <Form form={form} layout="vertical" initialValues={creativeDefaults()}>
      <CreativeForm form={form} row={null} readOnly={false} />
    </Form>
  );
}

describe('<CreativeForm> preview', () => {
  it('previews the media file as soon as its URL is typed, and sets its type from the extension', async () => {
    renderWithAuth(<Harness />, demand, { mode: 'dsp' });
    expect(screen.queryByTestId('creative-preview')).toBeNull();
    fireEvent.change(screen.getByLabelText('Media file 1 URL'), {
      target: { value: 'https://cdn.example.com/spot-30s.webm' },
    });
    await waitFor(() =>
      expect(screen.getByTestId('creative-preview').getAttribute('src')).toBe('https://cdn.example.com/spot-30s.webm'),
    );
    expect(screen.getByTestId('creative-preview').tagName).toBe('VIDEO');
    expect(screen.getByText(/video\/webm ·/)).toBeTruthy();
  });
});

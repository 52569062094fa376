import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { Form } from 'antd';
import { type AdsTxtCheckResult, adsTxtCheckPath, adsTxtLinePath, type ChannelAdsTxt } from '@adplane/shared';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { ChannelAdsTxtBox } from './ChannelAdsTxtBox.js';

const fetchMock = vi.fn<typeof fetch>();
vi.setConfig({ testTimeout: 20_000 });

const LINE: ChannelAdsTxt = {
  line: 'ads.northwind.test, nw1-sub-1, DIRECT',
  domain: 'ads.northwind.test',
  sellerId: 'nw1-sub-1',
  relationship: 'DIRECT',
  seller: { source: 'subpublisher', name: 'Harbor Video' },
  sellersJsonUrl: 'https://ads.northwind.test/sellers.json',
  warnings: [],
};

/** What the check was sent. */
let sent: unknown[] = [];

beforeEach(() => {
  sent = [];
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (url, init) => {
    if (String(url).endsWith(adsTxtCheckPath(7))) {
      const body = JSON.parse(String(init?.body)) as { file: string };
      sent.push(body);
      const result: AdsTxtCheckResult = {
        status: 'found',
        url: `https://harbor.test/${body.file}`,
        expected: LINE.line,
        matches: [{ line: 1, text: LINE.line ?? '' }],
        message: 'The line is there (line 1).',
      };
      return jsonResponse(result);
    }
    if (String(url).endsWith(adsTxtLinePath(7))) return jsonResponse(LINE);
    return jsonResponse({ message: 'not in this test' }, 404);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

/** The box as the channel form holds it: inside the form, whose environment it follows. */
function renderIn(environment: string) {
  renderWithAuth(
    <Form initialValues={{ environment }}>
      <ChannelAdsTxtBox channelId={7} />
    </Form>,
    makeUser('demand'),
  );
}

async function checkDomain(label: string) {
  const field = await screen.findByLabelText(label);
  fireEvent.change(field, { target: { value: 'www.harbor.test' } });
  fireEvent.click(screen.getByTestId('channel-adstxt-check'));
  await waitFor(() => expect(screen.getByTestId('channel-adstxt-result')).toBeTruthy());
}

describe('ChannelAdsTxtBox', () => {
  it.each([
    ['a CTV', 'ctv'],
    ['an in-app', 'app'],
  ])(
    "on %s channel, asks for the developer's website domain and checks its app-ads.txt",
    async (_name, environment) => {
      renderIn(environment);
      expect(await screen.findByText(LINE.line ?? '')).toBeTruthy();
      // A section of the channel form: the drawer's jump links list it.
      expect(screen.getByText('app-ads.txt').classList.contains('form-section-title')).toBe(true);
      expect(screen.getByText(/The line the app's developer adds to the app-ads.txt of its website/)).toBeTruthy();
      expect(screen.getByText("Check a developer's app-ads.txt")).toBeTruthy();
      expect(screen.getByPlaceholderText("Developer website domain (from the app's store listing)")).toBeTruthy();
      expect(screen.getByTestId('channel-adstxt-hint').textContent).toContain('/app-ads.txt');

      await checkDomain("Developer website domain (from the app's store listing)");
      expect(sent).toEqual([{ domain: 'www.harbor.test', file: 'app-ads.txt' }]);
      const result = screen.getByTestId('channel-adstxt-result');
      expect(result.textContent).toContain('The line is in the app-ads.txt');
      expect(result.textContent).toContain('Read from https://harbor.test/app-ads.txt');
    },
  );

  it("on a web channel, keeps the publisher's ads.txt", async () => {
    renderIn('web');
    expect(await screen.findByText(LINE.line ?? '')).toBeTruthy();
    expect(screen.getByText('ads.txt').classList.contains('form-section-title')).toBe(true);
    expect(screen.getByText(/The line the publisher adds to the ads.txt of its site/)).toBeTruthy();
    expect(screen.getByText("Check a publisher's ads.txt")).toBeTruthy();
    expect(screen.getByPlaceholderText('publisher.com')).toBeTruthy();
    expect(screen.queryByTestId('channel-adstxt-hint')).toBeNull();
    expect(screen.queryByText(/app-ads\.txt/)).toBeNull();

    await checkDomain('Publisher domain');
    expect(sent).toEqual([{ domain: 'www.harbor.test', file: 'ads.txt' }]);
    expect(screen.getByTestId('channel-adstxt-result').textContent).toContain('The line is in the ads.txt');
  });
});

import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { vast2Macros, vastMacros } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { TagPreview } from './TagPreview.js';
import { channelTagPreview } from './tagVariants.js';
import { urlBreakPieces, UrlText } from './UrlText.js';

/** The texts of a text's pieces (urlBreakPieces). */
const urlBreakSegments = (text: string): string[] => urlBreakPieces(text).map((piece) => piece.text);

vi.setConfig({ testTimeout: 20_000 });

describe('urlBreakSegments', () => {
  it('cuts a VAST tag before its path parts, its query and each parameter, never inside a host, a name or a macro', () => {
    expect(urlBreakSegments('https://ads.example.com/vast/u1?w={{width}}&h={{height}}&cb={{cachebuster}}')).toEqual([
      'https://ads.example.com',
      '/vast',
      '/u1',
      '?w={{width}}',
      '&h={{height}}',
      '&cb={{cachebuster}}',
    ]);
  });

  it('cuts an encoded URL inside a value before its encoded slashes and separators', () => {
    expect(urlBreakSegments('//a.example/v?u=https%3A%2F%2Fsite.example%2Fp%3Fx%3D1%26y')).toEqual([
      '//a.example',
      '/v',
      '?u=https%3A',
      '%2F',
      '%2Fsite.example',
      '%2Fp',
      '%3Fx%3D1',
      '%26y',
    ]);
  });

  it('leaves text around the URLs whole, and the pieces joined are the text', () => {
    const text =
      'curl -X POST https://ads.example.com/rtb/s1 -d \'{"site":{"page":"https://news.example/a/b"}}\'\nStored request id: u1';
    const pieces = urlBreakSegments(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces[0]).toBe('curl -X POST ');
    expect(pieces).toContain(' -d \'{"site":{"page":"');
    expect(pieces).toContain('/b');
    expect(pieces.at(-1)).toBe('"}}\'\nStored request id: u1');
    expect(urlBreakSegments('no link here, a/b & c')).toEqual(['no link here, a/b & c']);
  });
});

describe('<UrlText>', () => {
  it('keeps each part of a URL in one box with a <wbr> between, and adds no character to the text', () => {
    const text = 'GET https://ads.example.com/vast/u1?w={{width}}&h={{height}} now';
    const { container } = render(
      <pre data-testid="box">
        <UrlText text={text} />
      </pre>,
    );
    expect(Array.from(container.querySelectorAll('.url-piece')).map((el) => el.textContent)).toEqual([
      'https://ads.example.com',
      '/vast',
      '/u1',
      '?w={{width}}',
      '&h={{height}}',
    ]);
    expect(container.querySelectorAll('wbr')).toHaveLength(6);
    expect(screen.getByTestId('box').textContent).toBe(text);
  });
});

describe('<TagPreview>: a long tag wraps between its parts, and Copy copies it exactly', () => {
  const writeText = vi.fn<(text: string) => Promise<void>>(async () => undefined);
  beforeEach(() => Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true }));
  afterEach(() => writeText.mockClear());

  it('breaks the VAST tag before its parameters and copies the variant text with no inserted character', async () => {
    const user = makeUser('demand', {
      config: { host: 'https://ads.example.com', landing: '', database: 'default' },
      vastParams: vastMacros([]),
      vast2Params: vast2Macros([]),
    });
    const model = channelTagPreview({ uid: 'u1', integration: 'VAST', environment: 'web', vastVersion: '4.2' }, user)!;
    const shown = model.variants.find((v) => v.key === model.defaultKey)!.text;
    renderWithAuth(<TagPreview model={model} testId="tag" />, user);
    const code = screen.getByTestId('tag');
    expect(code.textContent).toBe(shown);
    expect(code.querySelectorAll('wbr').length).toBe(urlBreakSegments(shown).length - 1);
    // every parameter starts a piece: a line may end before '&', never inside 'page_url={{page_url}}'
    expect(urlBreakSegments(shown).some((piece) => piece.startsWith('&page_url='))).toBe(true);
    fireEvent.click(screen.getByTestId('tag-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(shown));
  });
});

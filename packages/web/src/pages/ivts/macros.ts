import { IVT_MACROS } from '@adplane/shared';

/** What each macro of a pixel URL becomes, in the console's words and with an example value for the preview. */
export const MACRO_INFO: Record<(typeof IVT_MACROS)[number], { label: string; example: string }> = {
  '{{ip}}': { label: 'IP address', example: '203.0.113.7' },
  '{{user_agent}}': { label: 'User agent', example: 'Roku/DVP-12.5 (12.5.0.4174)' },
  '{{app_bundle}}': { label: 'App bundle', example: 'com.example.tv' },
  '{{domain}}': { label: 'Domain', example: 'example.com' },
  '{{page_url}}': { label: 'Page URL', example: 'https://example.com/watch/42' },
  '{{device_id}}': { label: 'Device id (IFA)', example: '6d92078a-8246-4ba4-ae5b-76104861e7dc' },
  '{{channel_id}}': { label: 'Channel id', example: '12' },
  '{{tag_id}}': { label: 'Tag id', example: '34' },
  '{{cachebuster}}': { label: 'Cache buster', example: '1718000000123' },
  '{{country}}': { label: 'Country', example: 'US' },
  '{{impression_id}}': {
    label: 'Impression id (for the postback)',
    example: 'WzE3NjM5MDA4MDAsMSwxMDBd.k3Jx9QeLrT0vYw2pZs8aNg',
  },
};

/** Put a macro where the cursor is (replacing a selection); answers the new text and where the cursor goes. */
export function insertMacro(
  text: string,
  start: number | null | undefined,
  end: number | null | undefined,
  macro: string,
): { text: string; caret: number } {
  const from = Math.max(0, Math.min(start ?? text.length, text.length));
  const to = Math.max(from, Math.min(end ?? from, text.length));
  return { text: text.slice(0, from) + macro + text.slice(to), caret: from + macro.length };
}

/** Macros of the template the edge does not fill ('{{bogus}}'), in order, once each. */
export function unknownMacros(url: string): string[] {
  const known = new Set<string>(IVT_MACROS);
  return [...new Set(url.match(/\{\{[^}]*\}\}/g) ?? [])].filter((m) => !known.has(m));
}

/** The template with example values in place of its macros (URL-encoded, as the edge sends them). */
export function previewPixel(url: string): string {
  return url.replace(/\{\{[^}]*\}\}/g, (m) => {
    const info = MACRO_INFO[m as keyof typeof MACRO_INFO];
    return info ? encodeURIComponent(info.example) : m;
  });
}

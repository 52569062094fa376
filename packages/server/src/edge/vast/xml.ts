/** XML text escaping for element text and attribute values (the five predefined entities). */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const SPECIAL = /[&<>"']/g;
// Characters XML 1.0 forbids anywhere; a demand answer or a macro may carry them.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlEscape(text: string): string {
  return text.replace(FORBIDDEN, '').replace(SPECIAL, (c) => ESCAPES[c] ?? c);
}

/** ` name="value"` with the value escaped, or '' when the value is empty (an optional attribute left out). */
export const xmlAttr = (name: string, value: string): string => (value ? ` ${name}="${xmlEscape(value)}"` : '');

/** A CDATA section; a `]]>` inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${text.replace(FORBIDDEN, '').replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/**
 * 'HH:MM:SS' for a duration in seconds, 'HH:MM:SS.mmm' when it has a fraction of a second (VAST's
 * Duration and skipoffset are xs:time in every version: a demand's 15.5 s ad stays 15.5 s, not 16).
 */
export function vastDuration(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const s = Math.floor(ms / 1000);
  const hh = String(Math.floor(s / 3600) % 24).padStart(2, '0');
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return ms % 1000 ? `${hh}:${mm}:${ss}.${String(ms % 1000).padStart(3, '0')}` : `${hh}:${mm}:${ss}`;
}

/**
 * Characters a URI may not hold (xs:anyURI): percent-encoded, so a sloppy demand URL still validates;
 * a `%` that starts no escape (`...progress-60%`) is one of them.
 */
const NOT_IN_URI = /[\s<>"{}|\\^`]|%(?![0-9A-Fa-f]{2})/g;

/** A URL as the text of a VAST element: URI-safe, in a CDATA section. */
export function safeUrl(u: string): string {
  let s = u.trim().replace(NOT_IN_URI, (c) => encodeURIComponent(c));
  // a URI has one fragment: a later '#' is encoded
  const hash = s.indexOf('#');
  if (hash >= 0 && s.indexOf('#', hash + 1) > 0) s = s.slice(0, hash + 1) + s.slice(hash + 1).replaceAll('#', '%23');
  return cdata(s);
}

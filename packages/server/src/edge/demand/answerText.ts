/**
 * A demand answer's text from its bytes, in the encoding it is written in, as an XML reader finds it
 * (RFC 7303): a byte-order mark first, else the charset of its Content-Type, else the encoding its
 * XML declaration names, else UTF-8. European ad servers still write ISO-8859-1 (`encoding=
 * "ISO-8859-1"`, or only in the header): read as UTF-8, an `é` in its title or advertiser would be
 * U+FFFD. An encoding the runtime does not know is read as UTF-8.
 */
const DECLARED = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']/;
const CHARSET = /;\s*charset\s*=\s*"?([A-Za-z0-9._:-]{1,40})"?/i;
/** Read as UTF-8: UTF-8 itself, and a UTF-16 label without a byte-order mark (its declaration read as single bytes: not UTF-16). */
const AS_UTF8 = /^utf-?(8|16)/i;

export function answerText(body: Buffer, contentType: string | string[] | undefined): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return body.toString('utf8');
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff))
    return decode(body, body[0] === 0xff ? 'utf-16le' : 'utf-16be');
  const header = typeof contentType === 'string' ? CHARSET.exec(contentType)?.[1] : undefined;
  // (the declaration is ASCII in any ASCII-compatible encoding: its first bytes read as latin1)
  const declared = header ? undefined : DECLARED.exec(body.toString('latin1', 0, 200).trimStart())?.[1];
  const label = header ?? declared;
  return !label || AS_UTF8.test(label) ? body.toString('utf8') : decode(body, label);
}

function decode(body: Buffer, label: string): string {
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    // (an encoding label the runtime does not know)
    return body.toString('utf8');
  }
}

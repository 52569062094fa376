import { Fragment } from 'react';
import './urlText.css';

/** A URL in a text: with a scheme (`https://`, `http://`) or scheme-relative (`//host/...`). */
const URL_RUN = /(?:\b[a-z][a-z0-9+.-]*:)?\/\/[^\s"'<>`]+/gi;

/**
 * Where a URL may wrap, as a typesetter breaks one: before a path's `/`, before the query's `?`,
 * each `&` and a `#`, and before an encoded `/`, `?` or `&` (`%2F`, `%3F`, `%26`) inside a value,
 * so that a line ends between parts, never inside a host, a parameter or a macro.
 */
const URL_BREAK = /(?<!\/)(?=\/(?!\/))|(?=[?&#])|(?=%(?:2F|3F|26))/gi;

export interface TextPiece {
  text: string;
  /** A part of a URL, kept on one line (the browser would also break inside it, after `=`). */
  url: boolean;
}

/** The text cut where it may wrap: URLs at their break points (URL_BREAK), the rest whole. Joined, the pieces are the text. */
export function urlBreakPieces(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_RUN)) {
    const start = match.index;
    if (start > at) pieces.push({ text: text.slice(at, start), url: false });
    for (const part of match[0].split(URL_BREAK)) if (part !== '') pieces.push({ text: part, url: true });
    at = start + match[0].length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), url: false });
  return pieces;
}

/**
 * A text holding URLs (a tag, an endpoint, a test call) that wraps between the URLs' parts. Each part
 * is an unbreakable box (urlText.css: Chromium would otherwise break `domain=` from `{{domain}}`) with
 * a `<wbr>` between; neither adds a character, so text selected and copied by hand is the text. A part
 * longer than the line still wraps inside its box, as a last resort.
 */
export function UrlText({ text }: { text: string }) {
  return (
    <>
      {urlBreakPieces(text).map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece.url ? <span className="url-piece">{piece.text}</span> : piece.text}
        </Fragment>
      ))}
    </>
  );
}

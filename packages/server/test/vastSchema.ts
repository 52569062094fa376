import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser } from '@xmldom/xmldom';
import { VASTParser } from '@dailymotion/vast-client';
import { type VastVersion } from '../src/edge/vast/vastVersion.js';

/**
 * Test helpers: validate a VAST document with xmllint against its version's IAB schema (the
 * copies in fixtures/vast), and parse it with a real VAST client (@dailymotion/vast-client).
 */
const XSD: Record<VastVersion, string> = {
  '2.0': 'vast_2.0.1.xsd',
  '3.0': 'vast3_draft.xsd',
  '4.0': 'vast4.xsd',
  '4.1': 'vast_4.1.xsd',
  '4.2': 'vast_4.2.xsd',
};
const FIXTURES = fileURLToPath(new URL('./fixtures/vast/', import.meta.url));

/** '' when valid, else xmllint's complaint. */
export function schemaErrors(version: VastVersion, xml: string): string {
  // libxml2 checks xs:anyURI with a strict RFC 3986 parser that refuses square brackets, while the
  // VAST spec itself writes its macros as [ERRORCODE] inside tracking URLs (IAB samples fail the
  // same way). Only those macros are filled in before validating, in any case (the IAB writes them
  // in capitals, older ad servers `[random]` or `[Timestamp]`); everything else is checked as sent.
  // The document goes to xmllint on its standard input: no file is left behind.
  const doc = xml.replace(/\[[A-Za-z_]{3,40}\]/g, '0');
  try {
    execFileSync('xmllint', ['--noout', '--schema', join(FIXTURES, XSD[version]), '-'], {
      input: doc,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return '';
  } catch (error) {
    const e = error as { stderr?: Buffer; message: string };
    return e.stderr?.toString() || e.message;
  }
}

/** The ads a VAST client reads from a document, without following wrappers. */
export function clientAds(xml: string): { ads: Record<string, unknown>[]; errorURLTemplates: string[] } {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const parser = new VASTParser() as unknown as {
    parseVastXml(doc: unknown, options: Record<string, unknown>): Record<string, unknown>[];
    getErrorURLTemplates(): string[];
    initParsingStatus(options?: unknown): void;
  };
  parser.initParsingStatus({});
  const ads = parser.parseVastXml(doc, { isRootVAST: true, url: null, wrapperDepth: 0, allowMultipleAds: true });
  return { ads, errorURLTemplates: parser.getErrorURLTemplates() };
}

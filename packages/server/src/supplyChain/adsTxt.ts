/**
 * A small ads.txt parser (IAB Tech Lab ads.txt 1.1, section 3) and the match of one expected line.
 * Written here rather than taken from npm: the one package there is small, little used and not kept
 * up, and the syntax is a few rules:
 * - records are separated by any line break (CR, LF, CRLF); `#` starts a comment to the end of the line;
 * - `<FIELD #1>, <FIELD #2>, <FIELD #3>[, <FIELD #4>]`, whitespace around fields ignored; anything
 *   after a `;` is an extension; field #1 is a domain (case-insensitive), field #3 DIRECT or RESELLER
 *   (case-insensitive), field #4 the optional certification authority id;
 * - `<VARIABLE>=<VALUE>` declares a variable (contact, subdomain, inventorypartnerdomain, ownerdomain,
 *   managerdomain, or any other), names case-insensitive, repeats kept.
 * A line that is neither is reported, not fatal: crawlers skip what they cannot read.
 */

interface AdsTxtRecord {
  /** 1-based line number in the file. */
  line: number;
  /** The line as written, without its comment. */
  text: string;
  /** Field #1, lower-cased. */
  domain: string;
  /** Field #2, as written (seller ids are compared exactly). */
  accountId: string;
  /** Field #3, upper-cased: DIRECT, RESELLER, or another word a future version may add. */
  relationship: string;
  certificationAuthorityId: string | null;
  /** What follows `;`, trimmed; null without one. */
  extension: string | null;
}

interface AdsTxtVariable {
  line: number;
  /** Lower-cased: `contact`, `subdomain`, `ownerdomain`... */
  name: string;
  value: string;
}

export interface AdsTxtFile {
  records: AdsTxtRecord[];
  variables: AdsTxtVariable[];
  /** Lines that are neither a record nor a variable, with why. */
  errors: { line: number; message: string }[];
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const VARIABLE = /^([^\s,=]+)\s*=\s*(.*)$/;

export function parseAdsTxt(text: string): AdsTxtFile {
  const file: AdsTxtFile = { records: [], variables: [], errors: [] };
  // A byte order mark is not part of the first record.
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const hash = raw.indexOf('#');
    const content = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (content === '') return;
    const variable = VARIABLE.exec(content);
    if (variable && !content.slice(0, content.indexOf('=')).includes(',')) {
      file.variables.push({ line, name: variable[1].toLowerCase(), value: variable[2].trim() });
      return;
    }
    const semi = content.indexOf(';');
    const data = semi >= 0 ? content.slice(0, semi) : content;
    const extension = semi >= 0 ? content.slice(semi + 1).trim() : null;
    const fields = data.split(',').map((f) => f.trim());
    if (fields.length < 3 || fields.slice(0, 3).some((f) => f === '')) {
      file.errors.push({ line, message: 'a record needs three fields: domain, account id, DIRECT or RESELLER' });
      return;
    }
    const domain = fields[0].toLowerCase().replace(/\.$/, '');
    if (!DOMAIN.test(domain)) {
      file.errors.push({ line, message: `"${fields[0]}" is not a domain name` });
      return;
    }
    file.records.push({
      line,
      text: content,
      domain,
      accountId: fields[1],
      relationship: fields[2].toUpperCase(),
      certificationAuthorityId: fields[3] || null,
      extension,
    });
  });
  return file;
}

export interface ExpectedLine {
  domain: string;
  sellerId: string;
  relationship: string;
}

export type LineMatch =
  | { kind: 'found'; records: AdsTxtRecord[] }
  | { kind: 'relationship_differs'; records: AdsTxtRecord[] }
  | { kind: 'missing'; records: AdsTxtRecord[] };

/** Field #2 as its value: URL-decoded (ads.txt 1.1, 3.4.2: a field with whitespace or a comma is written URL-encoded). */
function accountIdValue(field: string): string {
  try {
    return decodeURIComponent(field);
  } catch {
    return field;
  }
}

/**
 * Whether a file carries the expected line: domain (case-insensitive), seller id (exactly, as written
 * or URL-decoded) and relationship (case-insensitive). Failing that, records of our domain and seller id with the other
 * relationship, or, as a hint, records of our domain whose seller id differs only in letter case.
 */
export function findLine(file: AdsTxtFile, expected: ExpectedLine): LineMatch {
  const domain = expected.domain.toLowerCase();
  const ours = file.records.filter((r) => r.domain === domain);
  const sameId = ours.filter(
    (r) => r.accountId === expected.sellerId || accountIdValue(r.accountId) === expected.sellerId,
  );
  const exact = sameId.filter((r) => r.relationship === expected.relationship.toUpperCase());
  if (exact.length) return { kind: 'found', records: exact };
  if (sameId.length) return { kind: 'relationship_differs', records: sameId };
  return {
    kind: 'missing',
    records: ours.filter((r) => accountIdValue(r.accountId).toLowerCase() === expected.sellerId.toLowerCase()),
  };
}

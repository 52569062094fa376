import Ajv from 'ajv-draft-04';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { FORMATS, type JsonSchema } from './jsonSchema.js';

/**
 * Generator-time only (scripts/gen-partners.ts and the test that keeps the output in step): compiles
 * every partner's parameter schema with ajv (draft-04, as Prebid Server writes them) into standalone
 * validation code, committed as partners.validators.ts.
 *
 * Why compiled ahead and not with `ajv.compile` at run time: ajv compiles a schema into a function
 * with `new Function`, and the console runs under a CSP without 'unsafe-eval' (http/securityHeaders.ts)
 * while its tag form checks a PreBid tag with the same shared schema before sending it
 * (resources/formErrors.ts). Standalone code is ajv's own answer to that; it also means the server
 * and the console pay no compile time at all, and neither bundles ajv.
 */

/** The options the validators are compiled with. */
const AJV_OPTIONS = {
  // Every problem at once, so that the form can mark every field that needs fixing.
  allErrors: true,
  // Keywords and formats ajv does not know fail the generator instead of validating less than the schema says.
  strict: true,
  // Prebid's schemas list `required` names inside anyOf branches and use unions of types, both valid draft-04.
  strictRequired: false,
  strictTypes: false,
  // No coercion: Prebid Server passes the parameters to the bidder as they are, so `"123"` for an
  // integer id is refused here too (the console's form sends numbers as numbers).
  coerceTypes: false,
  code: { source: true, esm: true, lines: true },
} as const;

/** A JS name per partner: bidder codes such as `33across` are not identifiers. */
const exportName = (index: number) => `partner${index}`;

/** The body of partners.validators.ts for these partners: one validator each, keyed by bidder code. */
export function partnerValidatorsCode(
  partners: readonly { readonly id: string; readonly schema: JsonSchema }[],
): string {
  const ajv = new Ajv(AJV_OPTIONS);
  // The formats gojsonschema (Prebid Server's validator) checks, by the same definitions.
  for (const [name, pattern] of Object.entries(FORMATS)) ajv.addFormat(name, pattern);
  partners.forEach((p, i) => ajv.addSchema(p.schema as object, exportName(i)));
  let code = standaloneCode(ajv, Object.fromEntries(partners.map((_, i) => [exportName(i), exportName(i)])));
  // ajv's ESM output still `require`s its one run-time helper (code-point length for minLength and
  // maxLength); the helper is inlined so that the module imports nothing.
  const helper = 'require("ajv/dist/runtime/ucs2length").default';
  code = code.split(helper).join('ucs2length');
  if (code.includes('require('))
    throw new Error('partner validators: the standalone code requires a module that is not inlined');
  return [
    '/* eslint-disable */',
    '// @ts-nocheck',
    '',
    '/** The length of a string in code points, as JSON Schema counts it (ajv/dist/runtime/ucs2length). */',
    'const ucs2length = (s) => { let n = 0; for (const _ of s) n++; return n; };',
    code.replace(/^"use strict";/, ''),
    '',
    `export const PARTNER_VALIDATORS = {${partners.map((p, i) => `${JSON.stringify(p.id)}: ${exportName(i)}`).join(', ')}};`,
  ].join('\n');
}

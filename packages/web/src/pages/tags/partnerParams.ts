import { type PartnerDefinition, type PartnerParam, PARTNERS, resolvePartner } from '@adplane/shared';

/**
 * A PreBid tag's partner parameters between the form and the API. The form holds what its inputs
 * give (numbers from number inputs, text, string lists from tag selects, JSON text for lists of
 * objects); the API wants the types of the partner's JSON Schema, and refuses `'123'` for an integer.
 */

/** The input a parameter gets in the form. */
export type ParamInput = 'group' | 'select' | 'number' | 'switch' | 'tags' | 'numberTags' | 'json' | 'text';

export function paramInput(param: PartnerParam): ParamInput {
  if (param.fields?.length) return 'group';
  if (param.enum?.length) return 'select';
  if (param.type === 'integer' || param.type === 'number') return 'number';
  if (param.type === 'boolean') return 'switch';
  if (param.type === 'array')
    return param.itemType === 'string'
      ? 'tags'
      : param.itemType === 'integer' || param.itemType === 'number'
        ? 'numberTags'
        : 'json';
  if (param.type === 'object') return 'json';
  return 'text';
}

/** The id a PreBid tag stores: the partner's Prebid variant (`pubmaticP`), or its bidder code when it has none. */
function partnerTagId(partner: PartnerDefinition): string {
  return partner.prebidVariantId ?? partner.id;
}

/** The partner select of a PreBid tag, by name. */
export const PARTNER_OPTIONS: readonly { value: string; label: string }[] = PARTNERS.map((p) => ({
  value: partnerTagId(p),
  label: p.name,
})).sort((a, b) => a.label.localeCompare(b.label));

/** A stored partner id (`pubmatic` or `pubmaticP`) as the select shows it; unknown ids stay as they are. */
export function partnerFormId(id: unknown): string {
  if (typeof id !== 'string' || id === '') return '';
  const resolved = resolvePartner(id);
  return resolved ? partnerTagId(resolved.partner) : id;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const NUMBER = /^-?\d+(\.\d+)?$/;

function numberFrom(v: unknown, param: Pick<PartnerParam, 'types' | 'type'>): unknown {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return v;
  const text = v.trim();
  if (NUMBER.test(text) && (param.type !== 'integer' || Number.isInteger(Number(text)))) return Number(text);
  // Not a number: text for a parameter that also takes text, else left for the server to name.
  return text;
}

/** Stored parameters -> form values. */
export function partnerParamsToForm(params: readonly PartnerParam[], stored: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (!isRecord(stored)) return values;
  for (const param of params) {
    const v = stored[param.name];
    if (v === undefined || v === null) continue;
    switch (paramInput(param)) {
      case 'group':
        values[param.name] = partnerParamsToForm(param.fields ?? [], v);
        break;
      case 'number':
        values[param.name] = typeof v === 'string' && NUMBER.test(v.trim()) ? Number(v) : v;
        break;
      case 'tags':
      case 'numberTags':
        values[param.name] = Array.isArray(v) ? v.map(String) : [String(v)];
        break;
      case 'json':
        values[param.name] = JSON.stringify(v);
        break;
      case 'text':
        values[param.name] = typeof v === 'string' ? v : JSON.stringify(v);
        break;
      default:
        values[param.name] = v;
    }
  }
  return values;
}

const empty = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

/** Text that is JSON of a list or an object, for parameters that take those too (appnexus keywords). */
function maybeJson(text: string, param: PartnerParam): unknown {
  const takesStructure = param.types.includes('array') || param.types.includes('object');
  if (takesStructure && /^[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Form values -> the parameters the API takes: typed as the partner's schema wants, empty inputs
 * left out (an unset optional parameter is absent, not `''`). JSON text that does not parse is an
 * error of the form (see `jsonRule`), so it throws here.
 */
export function partnerParamsToBody(params: readonly PartnerParam[], values: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (!isRecord(values)) return body;
  for (const param of params) {
    const v = values[param.name];
    if (empty(v)) continue;
    switch (paramInput(param)) {
      case 'group': {
        const inner = partnerParamsToBody(param.fields ?? [], v);
        if (Object.keys(inner).length) body[param.name] = inner;
        break;
      }
      case 'number':
        body[param.name] = numberFrom(v, param);
        break;
      case 'switch':
        body[param.name] = Boolean(v);
        break;
      case 'tags':
        body[param.name] = (v as unknown[]).map((x) => String(x).trim()).filter(Boolean);
        break;
      case 'numberTags':
        body[param.name] = (v as unknown[]).map((x) =>
          numberFrom(x, { type: param.itemType ?? 'number', types: [param.itemType ?? 'number'] }),
        );
        break;
      case 'json':
        body[param.name] = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
        break;
      case 'text':
        body[param.name] = typeof v === 'string' ? maybeJson(v.trim(), param) : v;
        break;
      default:
        body[param.name] = v;
    }
    if (Array.isArray(body[param.name]) && (body[param.name] as unknown[]).length === 0) delete body[param.name];
  }
  return body;
}

/** `placement_id`, or `inv_code + member`: the combinations a partner accepts, for people. */
export function requiredSetsText(sets: readonly (readonly string[])[]): string {
  return sets.map((set) => set.join(' + ')).join(', or ');
}

/** The required combinations to suggest: those in current spellings (deprecated ones still count when used). */
export function suggestedSets(partner: PartnerDefinition): readonly (readonly string[])[] {
  const deprecated = new Set(partner.params.filter((p) => p.deprecated).map((p) => p.name));
  const sets = partner.requiredSets.filter((s) => s.length > 0);
  const current = sets.filter((set) => set.every((name) => !deprecated.has(name)));
  return current.length ? current : sets;
}

/**
 * Which required combination the parameters miss, as a message for the partner field; null when one
 * of them is complete (the server checks the rest of the schema).
 */
export function missingRequired(partner: PartnerDefinition, body: Record<string, unknown>): string | null {
  const sets = partner.requiredSets.filter((s) => s.length > 0);
  if (sets.length === 0 || sets.some((set) => set.every((name) => body[name] !== undefined))) return null;
  const suggested = suggestedSets(partner);
  return suggested.length === 1
    ? `${partner.name} needs ${suggested[0].join(' and ')}`
    : `${partner.name} needs ${requiredSetsText(suggested)}`;
}

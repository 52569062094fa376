/**
 * The part of JSON Schema (draft-04, as Prebid Server writes its bidder parameters) that the console's
 * partner form is built from (./describe.ts). Validation is ajv's, compiled from the full schema
 * (./validatorCode.ts); this subset only bounds what the form reads. The 40 partner schemas use exactly
 * these keywords: type (one or a list), properties, required, additionalProperties, dependencies,
 * enum, pattern, format (hostname, uuid), minLength, minimum, items, minItems, maxItems, anyOf, oneOf
 * and not, plus the annotations $schema, title and description; maximum, maxLength and allOf are
 * understood too. Anything else is refused when the generator reads a schema, so a new partner file
 * that needs more fails loudly instead of getting a form that says less than its schema.
 */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

export interface JsonSchema {
  readonly $schema?: string;
  readonly title?: string;
  readonly description?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly enum?: readonly unknown[];
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly dependencies?: { readonly [name: string]: readonly string[] | JsonSchema };
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly not?: JsonSchema;
}

const JSON_TYPES: readonly JsonType[] = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];

const ANNOTATIONS = ['$schema', 'title', 'description'];
const KEYWORDS = new Set([
  ...ANNOTATIONS,
  ...['type', 'enum', 'properties', 'required', 'additionalProperties', 'dependencies'],
  ...['pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'items', 'minItems', 'maxItems'],
  ...['anyOf', 'oneOf', 'allOf', 'not'],
]);

/** The formats Prebid Server checks (gojsonschema's definitions); the validators are compiled with these. */
export const FORMATS: Readonly<Record<string, RegExp>> = {
  hostname: /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;

/** Throws, naming the keyword and where it sits, when a schema steps outside the understood subset. */
export function assertSupportedSchema(schema: unknown, where = '#'): asserts schema is JsonSchema {
  const fail = (why: string): never => {
    throw new Error(`partner parameter schema: ${why} at ${where}`);
  };
  if (!isObject(schema)) fail('a schema must be an object');
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) if (!KEYWORDS.has(key)) fail(`keyword "${key}" is not supported`);
  for (const key of ANNOTATIONS) if (key in s && typeof s[key] !== 'string') fail(`${key} must be text`);

  if ('type' in s) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.length === 0 || !types.every((t) => JSON_TYPES.includes(t as JsonType)))
      fail(`type ${JSON.stringify(s.type)} is not a JSON type`);
  }
  if ('enum' in s && (!Array.isArray(s.enum) || s.enum.length === 0)) fail('enum must be a non-empty list');
  if ('required' in s && (!Array.isArray(s.required) || !s.required.every((r) => typeof r === 'string')))
    fail('required must be a list of names');
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems'])
    if (key in s && !isCount(s[key])) fail(`${key} must be a whole number >= 0`);
  for (const key of ['minimum', 'maximum']) if (key in s && typeof s[key] !== 'number') fail(`${key} must be a number`);
  if ('pattern' in s) {
    if (typeof s.pattern !== 'string') fail('pattern must be text');
    try {
      new RegExp(s.pattern as string, 'u');
    } catch {
      fail(`pattern ${String(s.pattern)} is not a valid regular expression`);
    }
  }
  if ('format' in s && !(typeof s.format === 'string' && s.format in FORMATS))
    fail(`format ${JSON.stringify(s.format)} is not supported`);

  if ('properties' in s) {
    if (!isObject(s.properties)) fail('properties must be an object');
    for (const [name, sub] of Object.entries(s.properties as object))
      assertSupportedSchema(sub, `${where}/properties/${name}`);
  }
  if ('additionalProperties' in s && typeof s.additionalProperties !== 'boolean')
    assertSupportedSchema(s.additionalProperties, `${where}/additionalProperties`);
  if ('dependencies' in s) {
    if (!isObject(s.dependencies)) fail('dependencies must be an object');
    for (const [name, dep] of Object.entries(s.dependencies as object)) {
      if (Array.isArray(dep)) {
        if (!dep.every((d) => typeof d === 'string')) fail(`dependencies/${name} must list names`);
      } else assertSupportedSchema(dep, `${where}/dependencies/${name}`);
    }
  }
  if ('items' in s) {
    if (Array.isArray(s.items)) fail('items as a list (tuples) is not supported');
    assertSupportedSchema(s.items, `${where}/items`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (!(key in s)) continue;
    if (!Array.isArray(s[key]) || (s[key] as unknown[]).length === 0) fail(`${key} must be a non-empty list`);
    (s[key] as unknown[]).forEach((sub, i) => assertSupportedSchema(sub, `${where}/${key}/${i}`));
  }
  if ('not' in s) assertSupportedSchema(s.not, `${where}/not`);
}

/** The schema's `type` as a list, or undefined when it has none. */
export function typesOf(schema: JsonSchema): readonly JsonType[] | undefined {
  if (schema.type === undefined) return undefined;
  return typeof schema.type === 'string' ? [schema.type] : schema.type;
}

const REQUIREMENT_KEYS = new Set(['required', 'anyOf', 'oneOf', 'allOf', 'title', 'description']);

/** A schema that only says which parameters must be present, like `{ "required": ["siteId"] }` or a oneOf of such. */
export function isRequirementOnly(schema: JsonSchema): boolean {
  return (
    Object.keys(schema).every((k) => REQUIREMENT_KEYS.has(k)) &&
    [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].every(isRequirementOnly)
  );
}

const cross = (a: readonly string[][], b: readonly string[][]): string[][] =>
  a.flatMap((x) => b.map((y) => [...new Set([...x, ...y])]));

/**
 * The combinations of parameters that satisfy a schema's `required` together with its requirement-only
 * anyOf / oneOf / allOf, one list per alternative: openx gives `[['unit', 'delDomain'], ['unit', 'platform']]`.
 * oneOf's "only one of them" is not expressed here; validation checks it.
 */
export function requiredSets(schema: JsonSchema): string[][] {
  let sets: string[][] = [[...new Set(schema.required ?? [])]];
  for (const part of schema.allOf ?? []) if (isRequirementOnly(part)) sets = cross(sets, requiredSets(part));
  for (const branches of [schema.anyOf, schema.oneOf]) {
    if (branches?.every(isRequirementOnly)) sets = cross(sets, branches.flatMap(requiredSets));
  }
  return sets;
}

/**
 * The parameters a `dependencies` entry asks for once its key is set: the draft-04 list form, or a
 * requirement-only schema with a single combination (smartadserver's `siteId` needs `pageId` and `formatId`).
 */
export function dependencyNames(dependency: readonly string[] | JsonSchema): readonly string[] | undefined {
  if (Array.isArray(dependency)) return dependency as readonly string[];
  const schema = dependency as JsonSchema;
  if (!isRequirementOnly(schema)) return undefined;
  const sets = requiredSets(schema);
  return sets.length === 1 ? sets[0] : undefined;
}

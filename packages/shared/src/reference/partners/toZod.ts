import { z } from 'zod';
import { acceptsType, assertSupportedSchema, dependencyNames, FORMATS, isRequirementOnly, jsonTypeOf, requiredSets, typesOf, type JsonSchema, type JsonType } from './jsonSchema.js';

/**
 * Converts a partner parameter schema (the JSON-Schema subset of ./jsonSchema.ts) into a zod schema
 * with JSON Schema's meaning: a keyword constrains only values of its own type (a pattern says nothing
 * about a number), absent properties are fine unless required, unknown properties pass unless
 * additionalProperties says otherwise, and oneOf means exactly one.
 *
 * Typed parts map onto zod's own schemas (z.string, z.number().int, z.array, z.looseObject);
 * keywords zod has no twin for (a list of types, enum of any JSON, required, dependencies, anyOf,
 * oneOf, allOf, not) run as refinements over the same value. Issue messages are predicates that
 * follow the parameter's path: `zoneId` + `must be a whole number (got text "12")`.
 */
export function jsonSchemaToZod(schema: JsonSchema): z.ZodType<unknown> {
  assertSupportedSchema(schema);
  return compile(schema);
}

type Path = readonly PropertyKey[];
type Report = (path: Path, message: string) => void;
type Rule = (value: unknown, report: Report) => void;

const TYPE_WORDS: Record<JsonType, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

const wordList = (words: readonly string[], conjunction: 'and' | 'or'): string =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;

/** How a value reads in a message: `text "12"`, `1.5`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  const type = jsonTypeOf(value);
  if (type === 'array' || type === 'object') return TYPE_WORDS[type];
  return String(value);
}

function mustBe(types: readonly JsonType[], value: unknown): string {
  const words = types.filter((t) => !(t === 'integer' && types.includes('number'))).map((t) => TYPE_WORDS[t]);
  return `must be ${wordList(words, 'or')} (got ${describeValue(value)})`;
}

const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[0-9]+$': 'must contain digits only',
  '^\\d+$': 'must contain digits only',
  '^[0-9]+(\\.[0-9]+)?$': 'must be a decimal number such as 1.25',
};
const FORMAT_WORDS: Readonly<Record<string, string>> = { hostname: 'must be a host name such as ads.example.com', uuid: 'must be a UUID' };

const codePoints = (s: string): number => [...s].length;
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function stringSchema(s: JsonSchema): z.ZodType<unknown> {
  let schema = z.string({ error: (issue) => mustBe(['string'], issue.input) });
  if (s.minLength !== undefined) {
    const min = s.minLength;
    schema = schema.refine((v) => codePoints(v) >= min, min === 1 ? 'must not be empty' : `must be at least ${plural(min, 'character', 'characters')} long`);
  }
  if (s.maxLength !== undefined) {
    const max = s.maxLength;
    schema = schema.refine((v) => codePoints(v) <= max, `must be at most ${plural(max, 'character', 'characters')} long`);
  }
  if (s.pattern !== undefined) schema = schema.regex(new RegExp(s.pattern, 'u'), PATTERN_WORDS[s.pattern] ?? `must match the pattern ${s.pattern}`);
  if (s.format !== undefined) {
    const format = FORMATS[s.format];
    schema = schema.refine((v) => format.test(v), FORMAT_WORDS[s.format] ?? `must be a ${s.format}`);
  }
  return schema;
}

function numberSchema(s: JsonSchema, integer: boolean): z.ZodType<unknown> {
  let schema = z.number({ error: (issue) => mustBe([integer ? 'integer' : 'number'], issue.input) });
  if (integer) schema = schema.int({ error: (issue) => mustBe(['integer'], issue.input) });
  if (s.minimum !== undefined) schema = schema.gte(s.minimum, `must be at least ${s.minimum}`);
  if (s.maximum !== undefined) schema = schema.lte(s.maximum, `must be at most ${s.maximum}`);
  return schema;
}

function arraySchema(s: JsonSchema): z.ZodType<unknown> {
  let schema = z.array(s.items ? compile(s.items) : z.unknown(), { error: (issue) => mustBe(['array'], issue.input) });
  if (s.minItems !== undefined) schema = schema.min(s.minItems, s.minItems === 1 ? 'must not be empty' : `must hold at least ${plural(s.minItems, 'item', 'items')}`);
  if (s.maxItems !== undefined) schema = schema.max(s.maxItems, `must hold at most ${plural(s.maxItems, 'item', 'items')}`);
  return schema;
}

function objectSchema(s: JsonSchema): z.ZodType<unknown> {
  // Presence is checked by the `required` rule, so that a missing parameter reads "is required".
  const shape = Object.fromEntries(Object.entries(s.properties ?? {}).map(([name, sub]) => [name, compile(sub).optional()]));
  const error = (issue: { input?: unknown }) => mustBe(['object'], issue.input);
  const extra = s.additionalProperties;
  return typeof extra === 'object' ? z.object(shape, { error }).catchall(compile(extra)) : z.looseObject(shape, { error });
}

function typedSchema(type: JsonType, s: JsonSchema): z.ZodType<unknown> {
  switch (type) {
    case 'string':
      return stringSchema(s);
    case 'number':
    case 'integer':
      return numberSchema(s, type === 'integer');
    case 'boolean':
      return z.boolean({ error: (issue) => mustBe(['boolean'], issue.input) });
    case 'null':
      return z.null({ error: (issue) => mustBe(['null'], issue.input) });
    case 'array':
      return arraySchema(s);
    case 'object':
      return objectSchema(s);
  }
}

/** A zod schema that runs `check` over any value, reporting issues at paths relative to it. */
const checked = (check: (value: unknown, report: Report) => void): z.ZodType<unknown> =>
  z.unknown().superRefine((value, ctx) => check(value, (path, message) => ctx.addIssue({ code: 'custom', path: [...path], message, input: value })));

/** A list of types: the value's own JSON type picks the branch, so `"12a"` for `["integer", "string"]` is told about the string rules. */
function multiTypeSchema(types: readonly JsonType[], s: JsonSchema): z.ZodType<unknown> {
  const branches = new Map(types.map((t) => [t, typedSchema(t, s)]));
  return checked((value, report) => {
    const t = jsonTypeOf(value);
    const branch = (t && branches.get(t)) ?? (t === 'integer' ? branches.get('number') : undefined);
    if (branch) forward(branch.safeParse(value), report);
    else report([], mustBe(types, value));
  });
}

/** Keywords that constrain one JSON type; without a `type`, a schema still applies them to values of that type. */
const TYPE_KEYWORDS: readonly [JsonType, readonly (keyof JsonSchema)[]][] = [
  ['string', ['pattern', 'format', 'minLength', 'maxLength']],
  ['number', ['minimum', 'maximum']],
  ['array', ['items', 'minItems', 'maxItems']],
  ['object', ['properties', 'additionalProperties']],
];

function untypedSchema(s: JsonSchema): z.ZodType<unknown> {
  const constrained = TYPE_KEYWORDS.filter(([, keys]) => keys.some((k) => s[k] !== undefined)).map(([type]) => type);
  if (constrained.length === 0) return z.unknown();
  const branches = new Map(constrained.map((t) => [t, typedSchema(t, s)]));
  return checked((value, report) => {
    const t = jsonTypeOf(value);
    const branch = t && branches.get(t === 'integer' ? 'number' : t);
    if (branch) forward(branch.safeParse(value), report);
  });
}

function forward(result: { success: boolean; error?: z.ZodError }, report: Report): void {
  for (const issue of result.error?.issues ?? []) report(issue.path, issue.message);
}

const present = (value: Record<string, unknown>, key: string): boolean => value[key] !== undefined;
const isObject = (value: unknown): value is Record<string, unknown> => jsonTypeOf(value) === 'object';

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * "Set one of these combinations": the message for requirement-only anyOf / oneOf. It names the first
 * missing parameter of the combination closest to what was given, or, when oneOf failed because two
 * combinations are both set, the parameter that makes the second one.
 */
function reportAlternatives(value: Record<string, unknown>, sets: readonly string[][], report: Report): void {
  const list = sets.map((set) => set.join(' + ')).join(', ');
  const satisfied = sets.filter((set) => set.every((k) => present(value, k)));
  if (satisfied.length === 0) {
    const missing = (set: readonly string[]) => set.filter((k) => !present(value, k));
    const given = (set: readonly string[]) => set.length - missing(set).length;
    // Fewest missing first; on a tie, the combination the user has started filling in.
    const closest = [...sets].sort((a, b) => missing(a).length - missing(b).length || given(b) - given(a))[0];
    report([missing(closest)[0]], sets.length === 1 ? 'is required' : `is required: set one of ${list}`);
    return;
  }
  const [first, second = first] = satisfied;
  const field = second.find((k) => !first.includes(k)) ?? second[0];
  const others = first.filter((k) => !second.includes(k));
  report([field], `cannot be set together with ${wordList(others.length ? others : first, 'and')}: set only one of ${list}`);
}

function combinatorRule(kind: 'anyOf' | 'oneOf' | 'allOf', branches: readonly JsonSchema[]): Rule {
  const compiled = branches.map(compile);
  if (kind === 'allOf') return (value, report) => compiled.forEach((c) => forward(c.safeParse(value), report));
  const alternatives = branches.every(isRequirementOnly) ? branches.flatMap(requiredSets) : undefined;
  return (value, report) => {
    const results = compiled.map((c) => c.safeParse(value));
    const passed = results.filter((r) => r.success).length;
    if (kind === 'anyOf' ? passed > 0 : passed === 1) return;
    if (alternatives && isObject(value)) return reportAlternatives(value, alternatives, report);
    if (passed > 1) return report([], 'matches more than one of the allowed forms');
    // None fits: explain against the branch that takes this kind of value, else list the kinds taken.
    const fitting = branches.findIndex((b) => !typesOf(b) || acceptsType(typesOf(b) ?? [], value));
    if (fitting >= 0) return forward(results[fitting], report);
    report([], mustBe([...new Set(branches.flatMap((b) => typesOf(b) ?? []))], value));
  };
}

function notRule(excluded: JsonSchema): Rule {
  const compiled = compile(excluded);
  const sets = isRequirementOnly(excluded) ? requiredSets(excluded) : undefined;
  return (value, report) => {
    if (!compiled.safeParse(value).success) return;
    const set = sets && isObject(value) ? sets.find((s) => s.every((k) => present(value, k))) : undefined;
    if (!set || set.length === 0) return report([], 'has a combination of values that is not allowed');
    const field = set[set.length - 1];
    report([field], set.length === 1 ? 'is not allowed' : `cannot be set together with ${wordList(set.slice(0, -1), 'and')}`);
  };
}

function objectRules(s: JsonSchema): Rule[] {
  const rules: Rule[] = [];
  if (s.required?.length) {
    const required = s.required;
    rules.push((value, report) => {
      if (isObject(value)) for (const key of required) if (!present(value, key)) report([key], 'is required');
    });
  }
  if (s.additionalProperties === false) {
    const known = new Set(Object.keys(s.properties ?? {}));
    rules.push((value, report) => {
      if (isObject(value)) for (const key of Object.keys(value)) if (!known.has(key) && present(value, key)) report([key], 'is not a known parameter');
    });
  }
  for (const [key, dependency] of Object.entries(s.dependencies ?? {})) {
    const needs = dependencyNames(dependency);
    const compiled = needs ? undefined : compile(dependency as JsonSchema);
    rules.push((value, report) => {
      if (!isObject(value) || !present(value, key)) return;
      if (needs) for (const other of needs) if (!present(value, other)) report([other], `is required when ${key} is set`);
      if (compiled) forward(compiled.safeParse(value), report);
    });
  }
  return rules;
}

function compile(s: JsonSchema): z.ZodType<unknown> {
  const types = typesOf(s);
  const base = !types ? untypedSchema(s) : types.length === 1 ? typedSchema(types[0], s) : multiTypeSchema(types, s);
  const rules: Rule[] = [];
  if (s.enum) {
    const allowed = s.enum;
    rules.push((value, report) => {
      if (!allowed.some((a) => deepEqual(a, value))) report([], `must be one of: ${allowed.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(', ')}`);
    });
  }
  rules.push(...objectRules(s));
  if (s.allOf) rules.push(combinatorRule('allOf', s.allOf));
  if (s.anyOf) rules.push(combinatorRule('anyOf', s.anyOf));
  if (s.oneOf) rules.push(combinatorRule('oneOf', s.oneOf));
  if (s.not) rules.push(notRule(s.not));
  if (rules.length === 0) return base;

  return checked((value, report) => {
    forward(base.safeParse(value), report);
    // A value of the wrong type has been told so; the rules below would only repeat it in other words.
    if (types && !acceptsType(types, value)) return;
    for (const rule of rules) rule(value, report);
  });
}

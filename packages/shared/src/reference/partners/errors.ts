import { type FieldError } from '../../schemas/common.js';
import { isRequirementOnly, requiredSets, typesOf, type JsonSchema, type JsonType } from './jsonSchema.js';

/**
 * ajv's errors for a partner's parameters, in the words of an ad-ops form: each names the parameter
 * by its path (`wrapper.profile`, '' for the parameters object itself) and says what is wrong with
 * it, `zoneId must be a whole number (got text "123")`, instead of ajv's `must be integer` at
 * `/zoneId`. A oneOf / anyOf of required combinations becomes one "set one of ..." message instead
 * of one error per branch.
 */

/** An error as ajv's generated validators report it (ajv's ErrorObject, without its optional extras). */
export interface AjvError {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

const TYPE_WORDS: Record<JsonType, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[0-9]+$': 'must contain digits only',
  '^\\d+$': 'must contain digits only',
  '^[0-9]+(\\.[0-9]+)?$': 'must be a decimal number such as 1.25',
};
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  hostname: 'must be a host name such as ads.example.com',
  uuid: 'must be a UUID',
};

const wordList = (words: readonly string[], conjunction: 'and' | 'or'): string =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;
const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON type of a value as JSON Schema sees it (1 is an integer, 1.5 a number). */
function jsonTypeOf(value: unknown): JsonType | undefined {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number')
    return Number.isFinite(value) ? (Number.isInteger(value) ? 'integer' : 'number') : undefined;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'object')
    return typeof value as JsonType;
  return undefined;
}

/** How a value reads in a message: `text "12"`, `1.5`, `a list`. */
function describeValue(value: unknown): string {
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

/** `/keywords/0/value` -> ['keywords', '0', 'value'] (JSON Pointer, RFC 6901). */
const pointer = (path: string): string[] =>
  path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path)
    value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** The schema node a `#/properties/x/anyOf` path points at. */
function schemaAt(schema: JsonSchema, schemaPath: string): unknown {
  return valueAt(schema, pointer(schemaPath.replace(/^#/, '')));
}

const present = (value: Record<string, unknown>, key: string): boolean => value[key] !== undefined;

interface Problem {
  readonly path: readonly string[];
  readonly message: string;
  /** Where ajv reported the error it comes from: problems are listed in ajv's order, the schema's. */
  order?: number;
}

/**
 * "Set one of these combinations": a requirement-only anyOf / oneOf that failed. It names the first
 * missing parameter of the combination closest to what was given, or, when oneOf failed because two
 * combinations are both set, the parameter that makes the second one.
 */
function alternativesProblem(value: Record<string, unknown>, sets: readonly string[][]): Problem {
  const list = sets.map((set) => set.join(' + ')).join(', ');
  const satisfied = sets.filter((set) => set.every((k) => present(value, k)));
  if (satisfied.length === 0) {
    const missing = (set: readonly string[]) => set.filter((k) => !present(value, k));
    const given = (set: readonly string[]) => set.length - missing(set).length;
    // Fewest missing first; on a tie, the combination the user has started filling in.
    const closest = [...sets].sort((a, b) => missing(a).length - missing(b).length || given(b) - given(a))[0];
    return {
      path: [missing(closest)[0]],
      message: sets.length === 1 ? 'is required' : `is required: set one of ${list}`,
    };
  }
  const [first, second = first] = satisfied;
  const field = second.find((k) => !first.includes(k)) ?? second[0];
  const others = first.filter((k) => !second.includes(k));
  return {
    path: [field],
    message: `cannot be set together with ${wordList(others.length ? others : first, 'and')}: set only one of ${list}`,
  };
}

/** What an anyOf / oneOf / not error means, and which of its branches' own errors still say something useful. */
function combinatorProblems(
  error: AjvError,
  branches: readonly JsonSchema[],
  value: unknown,
  path: string[],
): { problems: Problem[]; keepBranch?: number } {
  if (error.keyword === 'not') {
    const excluded = branches[0];
    const set =
      isRequirementOnly(excluded) && isObject(value)
        ? requiredSets(excluded).find((s) => s.every((k) => present(value, k)))
        : undefined;
    if (!set || set.length === 0)
      return { problems: [{ path, message: 'has a combination of values that is not allowed' }] };
    const message =
      set.length === 1 ? 'is not allowed' : `cannot be set together with ${wordList(set.slice(0, -1), 'and')}`;
    return { problems: [{ path: [...path, set[set.length - 1]], message }] };
  }
  if (branches.every(isRequirementOnly) && isObject(value)) {
    const problem = alternativesProblem(value, branches.flatMap(requiredSets));
    return { problems: [{ path: [...path, ...problem.path], message: problem.message }] };
  }
  const passing = error.params.passingSchemas;
  if (Array.isArray(passing) && passing.length > 1)
    return { problems: [{ path, message: 'matches more than one of the allowed forms' }] };
  // None fits: explain against the branch that takes this kind of value, else list the kinds taken.
  const t = jsonTypeOf(value);
  const fitting = branches.findIndex((b) => {
    const types = typesOf(b);
    return !types || (t !== undefined && (types.includes(t) || (t === 'integer' && types.includes('number'))));
  });
  if (fitting >= 0) return { problems: [], keepBranch: fitting };
  return { problems: [{ path, message: mustBe([...new Set(branches.flatMap((b) => typesOf(b) ?? []))], value) }] };
}

/** The predicate of one plain keyword error (not a combinator), read against its schema node. */
function keywordProblem(error: AjvError, schema: JsonSchema, value: unknown, path: string[]): Problem {
  const node = (schemaAt(schema, error.schemaPath.replace(/\/[^/]*$/, '')) ?? {}) as JsonSchema;
  const p = error.params;
  switch (error.keyword) {
    case 'type':
      return { path, message: mustBe(typesOf(node) ?? [], value) };
    case 'required': {
      // A `dependencies` entry written as a schema (smartadserver) reports through `required`.
      const dependency = /\/dependencies\/([^/]+)\/required$/.exec(error.schemaPath);
      const key = String(p.missingProperty);
      return { path: [...path, key], message: dependency ? `is required when ${dependency[1]} is set` : 'is required' };
    }
    case 'dependencies':
      return { path: [...path, String(p.missingProperty)], message: `is required when ${String(p.property)} is set` };
    case 'additionalProperties':
      return { path: [...path, String(p.additionalProperty)], message: 'is not a known parameter' };
    case 'enum':
      return {
        path,
        message: `must be one of: ${(node.enum ?? []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(', ')}`,
      };
    case 'pattern':
      return { path, message: PATTERN_WORDS[String(p.pattern)] ?? `must match the pattern ${String(p.pattern)}` };
    case 'format':
      return { path, message: FORMAT_WORDS[String(p.format)] ?? `must be a ${String(p.format)}` };
    case 'minLength':
      return {
        path,
        message:
          p.limit === 1
            ? 'must not be empty'
            : `must be at least ${plural(Number(p.limit), 'character', 'characters')} long`,
      };
    case 'maxLength':
      return { path, message: `must be at most ${plural(Number(p.limit), 'character', 'characters')} long` };
    case 'minItems':
      return {
        path,
        message: p.limit === 1 ? 'must not be empty' : `must hold at least ${plural(Number(p.limit), 'item', 'items')}`,
      };
    case 'maxItems':
      return { path, message: `must hold at most ${plural(Number(p.limit), 'item', 'items')}` };
    case 'minimum':
      return { path, message: `must be at least ${String(p.limit)}` };
    case 'maximum':
      return { path, message: `must be at most ${String(p.limit)}` };
    default:
      return { path, message: error.message ?? `fails the ${error.keyword} rule` };
  }
}

const COMBINATORS = new Set(['anyOf', 'oneOf', 'not']);
const under = (schemaPath: string, prefix: string) => schemaPath.startsWith(`${prefix}/`);

/** ajv's errors for `params` against a partner's `schema`, as field errors (see the top of the file). */
export function partnerFieldErrors(schema: JsonSchema, params: unknown, errors: readonly AjvError[]): FieldError[] {
  let pending = [...errors];
  const problems: Problem[] = [];

  // Outermost combinators first: their verdict decides what their branches' errors are worth.
  const combinators = pending
    .filter((e) => COMBINATORS.has(e.keyword))
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const error of combinators) {
    if (!pending.includes(error)) continue; // inside a branch already set aside
    const node = schemaAt(schema, error.schemaPath);
    const branches = (error.keyword === 'not' ? [node] : node) as JsonSchema[];
    const path = pointer(error.instancePath);
    const { problems: found, keepBranch } = combinatorProblems(error, branches, valueAt(params, path), path);
    problems.push(...found.map((f) => ({ ...f, order: errors.indexOf(error) })));
    const kept = keepBranch === undefined ? undefined : `${error.schemaPath}/${keepBranch}`;
    pending = pending.filter(
      (e) =>
        e !== error && (!under(e.schemaPath, error.schemaPath) || (kept !== undefined && under(e.schemaPath, kept))),
    );
  }

  // A value of the wrong type has been told so; other rules on the same value would only repeat it.
  const wrongType = new Set(pending.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  for (const error of pending) {
    if (COMBINATORS.has(error.keyword)) continue;
    if (error.keyword !== 'type' && wrongType.has(error.instancePath)) continue;
    const path = pointer(error.instancePath);
    problems.push({ ...keywordProblem(error, schema, valueAt(params, path), path), order: errors.indexOf(error) });
  }
  problems.sort((a, b) => (a.order ?? 0) - (b.order ?? 0));

  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const problem of problems) {
    const field = problem.path.join('.');
    const message = `${field || 'Parameters'} ${problem.message}`;
    if (seen.has(message)) continue;
    seen.add(message);
    result.push({ field, message });
  }
  return result;
}

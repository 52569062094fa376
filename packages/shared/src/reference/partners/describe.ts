import { dependencyNames, requiredSets, typesOf, type JsonSchema, type JsonType } from './jsonSchema.js';
import { type PartnerParam, type PartnerParamType } from './types.js';

/**
 * The parameter list of a partner, read from its JSON Schema: one entry per declared property, in the
 * schema's order. The generator stores the result beside the schema; a test re-derives it to keep the
 * two in step.
 */
export function describePartnerParams(schema: JsonSchema): PartnerParam[] {
  const sets = requiredSets(schema);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const dependency = schema.dependencies?.[name];
    return describeParam(
      name,
      property,
      sets.every((set) => set.includes(name)),
      dependency ? dependencyNames(dependency) : undefined,
    );
  });
}

/** A property's types: its own `type`, else the types of its anyOf / oneOf branches (sovrn's bidfloor is a number or text). */
function paramTypes(property: JsonSchema): PartnerParamType[] {
  const own = typesOf(property);
  const listed: readonly JsonType[] =
    own ?? [...(property.anyOf ?? []), ...(property.oneOf ?? [])].flatMap((b) => typesOf(b) ?? []);
  return [...new Set(listed.filter((t): t is PartnerParamType => t !== 'null'))];
}

const primaryType = (types: readonly PartnerParamType[]): PartnerParamType | undefined =>
  types.find((t) => t === 'integer' || t === 'number') ?? types[0];

function describeParam(
  name: string,
  property: JsonSchema,
  required: boolean,
  requires: readonly string[] | undefined,
): PartnerParam {
  const types = paramTypes(property);
  const type = primaryType(types);
  if (!type) throw new Error(`partner parameter ${name}: its schema declares no type`);
  const description = (
    property.description ??
    [...(property.anyOf ?? []), ...(property.oneOf ?? [])].find((b) => b.description)?.description ??
    ''
  ).trim();
  const itemType = property.items ? primaryType(paramTypes(property.items)) : undefined;

  const param: { -readonly [K in keyof PartnerParam]: PartnerParam[K] } = {
    name,
    type,
    types,
    numeric: types.includes('integer') || types.includes('number'),
    required,
    description,
    deprecated: /deprecated/i.test(description),
  };
  if (property.enum) param.enum = property.enum as PartnerParam['enum'];
  if (property.pattern !== undefined && types.includes('string')) param.pattern = property.pattern;
  if (property.format !== undefined) param.format = property.format;
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (property[key] !== undefined) param[key] = property[key];
  }
  if (itemType) param.itemType = itemType;
  if (requires?.length) param.requires = requires;
  if (property.properties) {
    param.fields = describePartnerParams(property);
    const sets = requiredSets(property);
    if (sets.some((set) => set.length > 0)) param.requiredSets = sets;
  }
  return param;
}

import { describe, expect, it } from 'vitest';
import { assertSupportedSchema, dependencyNames, requiredSets, type JsonSchema } from './jsonSchema.js';
import { describeValue, jsonSchemaToZod } from './toZod.js';

const issues = (schema: JsonSchema, value: unknown) => {
  const result = jsonSchemaToZod(schema).safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '.'}: ${i.message}`);
};

describe('jsonSchemaToZod', () => {
  it('checks types, telling integers from numbers', () => {
    expect(issues({ type: 'integer' }, 3)).toEqual([]);
    expect(issues({ type: 'integer' }, 3.5)).toEqual(['.: must be a whole number (got 3.5)']);
    expect(issues({ type: 'number' }, 3)).toEqual([]);
    expect(issues({ type: 'number' }, '3')).toEqual(['.: must be a number (got text "3")']);
    expect(issues({ type: 'boolean' }, 'true')).toEqual(['.: must be true or false (got text "true")']);
    expect(issues({ type: 'null' }, 0)).toEqual(['.: must be null (got 0)']);
    expect(issues({ type: 'array' }, {})).toEqual(['.: must be a list (got an object)']);
    expect(issues({ type: ['integer', 'string'] }, 'x')).toEqual([]);
    expect(issues({ type: ['integer', 'string'] }, 1.5)).toEqual(['.: must be a whole number or text (got 1.5)']);
    expect(issues({ type: ['number', 'integer'] }, [])).toEqual(['.: must be a number (got a list)']);
  });

  it('applies each keyword to values of its own type only', () => {
    const idOrDigits: JsonSchema = { type: ['integer', 'string'], pattern: '^\\d+$', minimum: 1, minLength: 2 };
    expect(issues(idOrDigits, 5)).toEqual([]);
    expect(issues(idOrDigits, '05')).toEqual([]);
    expect(issues(idOrDigits, 0)).toEqual(['.: must be at least 1']);
    expect(issues(idOrDigits, '5')).toEqual(['.: must be at least 2 characters long']);
    expect(issues({ type: 'number', pattern: '^[0-9]+$' }, 1.5)).toEqual([]);
    expect(issues({ required: ['a'] }, 'not an object')).toEqual([]);
  });

  it('checks string lengths in characters, patterns and formats', () => {
    expect(issues({ type: 'string', maxLength: 2 }, '😀😀')).toEqual([]);
    expect(issues({ type: 'string', maxLength: 2 }, 'abc')).toEqual(['.: must be at most 2 characters long']);
    expect(issues({ type: 'string', minLength: 1 }, '')).toEqual(['.: must not be empty']);
    expect(issues({ type: 'string', pattern: '\\.[a-z]{2,3}$' }, 'a.net')).toEqual([]);
    expect(issues({ type: 'string', pattern: '\\.[a-z]{2,3}$' }, 'a.network')).toEqual(['.: must match the pattern \\.[a-z]{2,3}$']);
    expect(issues({ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' }, '1.')).toEqual(['.: must be a decimal number such as 1.25']);
    expect(issues({ type: 'string', format: 'hostname' }, 'ads.example.com')).toEqual([]);
    expect(issues({ type: 'string', format: 'hostname' }, '-bad.example.com')).toEqual(['.: must be a host name such as ads.example.com']);
    expect(issues({ type: 'string', format: 'uuid' }, '0F8B1C2D-3E4F-4A5B-8C6D-7E8F9A0B1C2D')).toEqual([]);
    expect(issues({ type: 'string', format: 'uuid' }, '0f8b1c2d3e4f4a5b8c6d7e8f9a0b1c2d')).toEqual(['.: must be a UUID']);
  });

  it('checks number bounds, enums and lists', () => {
    expect(issues({ type: 'number', minimum: 0, maximum: 10 }, 11)).toEqual(['.: must be at most 10']);
    expect(issues({ type: 'number', minimum: 0, maximum: 10 }, -1)).toEqual(['.: must be at least 0']);
    expect(issues({ enum: ['above', 'below'] }, 'middle')).toEqual(['.: must be one of: above, below']);
    expect(issues({ enum: [1, { a: [2] }] }, { a: [2] })).toEqual([]);
    expect(issues({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 }, [])).toEqual(['.: must not be empty']);
    expect(issues({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 }, [1, 2, 3])).toEqual(['.: must hold at most 2 items']);
    expect(issues({ type: 'array', items: { type: 'integer' } }, [1, 'x'])).toEqual(['1: must be a whole number (got text "x")']);
  });

  it('checks objects: required, nested properties, additional properties and dependencies', () => {
    const slot: JsonSchema = {
      type: 'object',
      properties: { id: { type: 'string' }, size: { type: 'object', properties: { w: { type: 'integer' }, h: { type: 'integer' } }, required: ['w', 'h'] } },
      required: ['id'],
    };
    expect(issues(slot, { id: 'a', size: { w: 300, h: 250 }, other: 1 })).toEqual([]);
    expect(issues(slot, { size: { w: '300' } })).toEqual(['size.w: must be a whole number (got text "300")', 'size.h: is required', 'id: is required']);
    expect(issues({ ...slot, additionalProperties: false }, { id: 'a', other: 1 })).toEqual(['other: is not a known parameter']);
    expect(issues({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }, { a: ['x'], b: 'y' })).toEqual([
      'b: must be a list (got text "y")',
    ]);
    expect(issues({ type: 'object', dependencies: { a: ['b'] } }, { a: 1 })).toEqual(['b: is required when a is set']);
    expect(issues({ type: 'object', dependencies: { a: { required: ['b', 'c'] } } }, { a: 1, b: 2 })).toEqual(['c: is required when a is set']);
    expect(issues({ type: 'object', dependencies: { a: { properties: { b: { type: 'string' } } } } }, { a: 1, b: 2 })).toEqual([
      'b: must be text (got 2)',
    ]);
  });

  it('explains required alternatives by the closest combination, and oneOf conflicts', () => {
    const schema: JsonSchema = { type: 'object', oneOf: [{ required: ['tagid', 'publisherId'] }, { required: ['tagId', 'publisherId'] }] };
    expect(issues(schema, { tagId: 'x', publisherId: 'p' })).toEqual([]);
    expect(issues(schema, { tagId: 'x' })).toEqual(['publisherId: is required: set one of tagid + publisherId, tagId + publisherId']);
    expect(issues(schema, { tagid: 'x', tagId: 'y', publisherId: 'p' })).toEqual([
      'tagId: cannot be set together with tagid: set only one of tagid + publisherId, tagId + publisherId',
    ]);
    expect(issues({ type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] }, { a: 1, b: 2 })).toEqual([]);
    expect(issues({ type: 'object', oneOf: [{ required: ['a'] }] }, {})).toEqual(['a: is required']);
    expect(issues({ type: 'object', allOf: [{ required: ['a'] }, { properties: { a: { type: 'string' } } }] }, { a: 1 })).toEqual([
      'a: must be text (got 1)',
    ]);
  });

  it('explains typed alternatives and exclusions', () => {
    const floor: JsonSchema = { anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }] };
    expect(issues(floor, 1.5)).toEqual([]);
    expect(issues(floor, '')).toEqual(['.: must not be empty']);
    expect(issues(floor, true)).toEqual(['.: must be a number or text (got true)']);
    expect(issues({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1)).toEqual(['.: matches more than one of the allowed forms']);
    expect(issues({ type: 'object', not: { required: ['a', 'b', 'c'] } }, { a: 1, b: 2, c: 3 })).toEqual(['c: cannot be set together with a and b']);
    expect(issues({ type: 'object', not: { required: ['a'] } }, { a: 1 })).toEqual(['a: is not allowed']);
    expect(issues({ not: { type: 'string' } }, 'x')).toEqual(['.: has a combination of values that is not allowed']);
    expect(issues({ not: { type: 'string' } }, 1)).toEqual([]);
  });

  it('refuses schemas outside the understood subset', () => {
    expect(() => jsonSchemaToZod({ $ref: '#/definitions/x' } as JsonSchema)).toThrow('keyword "$ref" is not supported at #');
    expect(() => assertSupportedSchema({ properties: { a: { type: 'string', format: 'email' } } })).toThrow('format "email" is not supported at #/properties/a');
    expect(() => assertSupportedSchema({ items: [{ type: 'string' }] })).toThrow('items as a list (tuples) is not supported');
    expect(() => assertSupportedSchema({ type: 'string', pattern: '(' })).toThrow('is not a valid regular expression');
    expect(() => assertSupportedSchema({ type: 'float' })).toThrow('is not a JSON type');
    expect(() => assertSupportedSchema({ anyOf: [] })).toThrow('anyOf must be a non-empty list');
    expect(() => assertSupportedSchema({ minLength: -1 })).toThrow('minLength must be a whole number >= 0');
  });
});

describe('requirement helpers', () => {
  it('expands required rules into combinations', () => {
    expect(requiredSets({ required: ['unit'], anyOf: [{ required: ['delDomain'] }, { required: ['platform'] }] })).toEqual([
      ['unit', 'delDomain'],
      ['unit', 'platform'],
    ]);
    expect(requiredSets({ oneOf: [{ oneOf: [{ required: ['a'] }, { required: ['b'] }] }, { required: ['c', 'd'] }] })).toEqual([['a'], ['b'], ['c', 'd']]);
    expect(requiredSets({ allOf: [{ required: ['a'] }, { required: ['b'] }] })).toEqual([['a', 'b']]);
    expect(requiredSets({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toEqual([[]]);
    expect(dependencyNames(['a'])).toEqual(['a']);
    expect(dependencyNames({ required: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(dependencyNames({ properties: {} })).toBeUndefined();
  });

  it('describes values for messages', () => {
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue('x'.repeat(50))).toBe(`text "${'x'.repeat(40)}…"`);
    expect(describeValue([1])).toBe('a list');
    expect(describeValue(false)).toBe('false');
  });
});

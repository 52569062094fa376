import { describe, expect, it } from 'vitest';
import { assertSupportedSchema, dependencyNames, requiredSets } from './jsonSchema.js';

describe('the schema subset the partner form reads', () => {
  it('refuses schemas outside it, naming the keyword and where it sits', () => {
    expect(() => assertSupportedSchema({ $ref: '#/definitions/x' })).toThrow('keyword "$ref" is not supported at #');
    expect(() => assertSupportedSchema({ properties: { a: { type: 'string', format: 'email' } } })).toThrow(
      'format "email" is not supported at #/properties/a',
    );
    expect(() => assertSupportedSchema({ items: [{ type: 'string' }] })).toThrow(
      'items as a list (tuples) is not supported',
    );
    expect(() => assertSupportedSchema({ type: 'string', pattern: '(' })).toThrow('is not a valid regular expression');
    expect(() => assertSupportedSchema({ type: 'float' })).toThrow('is not a JSON type');
    expect(() => assertSupportedSchema({ anyOf: [] })).toThrow('anyOf must be a non-empty list');
    expect(() => assertSupportedSchema({ minLength: -1 })).toThrow('minLength must be a whole number >= 0');
  });

  it('expands required rules into combinations', () => {
    expect(
      requiredSets({ required: ['unit'], anyOf: [{ required: ['delDomain'] }, { required: ['platform'] }] }),
    ).toEqual([
      ['unit', 'delDomain'],
      ['unit', 'platform'],
    ]);
    expect(
      requiredSets({ oneOf: [{ oneOf: [{ required: ['a'] }, { required: ['b'] }] }, { required: ['c', 'd'] }] }),
    ).toEqual([['a'], ['b'], ['c', 'd']]);
    expect(requiredSets({ allOf: [{ required: ['a'] }, { required: ['b'] }] })).toEqual([['a', 'b']]);
    expect(requiredSets({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toEqual([[]]);
    expect(dependencyNames(['a'])).toEqual(['a']);
    expect(dependencyNames({ required: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(dependencyNames({ properties: {} })).toBeUndefined();
  });
});

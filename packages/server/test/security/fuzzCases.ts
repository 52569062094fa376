/**
 * What the route fuzzer sends (routeFuzzer.test.ts). Add a case here and every route gets it.
 */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
];

const INJECTIONS = [
  "' OR 1=1 --",
  '1; DROP TABLE users; --',
  '"><script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '../../../../etc/passwd',
  '%00\u0000nul',
  '\\',
  '%',
  '_',
  'ʼ𝕏',
];

const WRONG_TYPES = ['', ' ', '-1', '0', '1.5', '1e400', 'NaN', 'Infinity', 'true', 'null', '[]', '{}'];

/** Every value goes into every query parameter of a GET at once. */
export const QUERY_VALUES = [...PROTOTYPE_NAMES, ...INJECTIONS, ...WRONG_TYPES, 'x'.repeat(5_000)];

/** The query parameters of the API's lists, reports and logs, and prototype names as parameter names. */
export const QUERY_NAMES = [
  'page',
  'pageSize',
  'sort',
  'order',
  'search',
  'status',
  'type',
  'id',
  'kind',
  'entityId',
  'action',
  'userId',
  'beforeId',
  'limit',
  'from',
  'to',
  'dateFrom',
  'dateTo',
  'start',
  'end',
  'tz',
  'timezone',
  'groupBy',
  'dimensions',
  'metrics',
  'filters',
  'interval',
  'format',
  'tenantId',
  'q',
  ...PROTOTYPE_NAMES,
];

/** Values of `:id` and other path parameters. */
export const PATH_VALUES = [
  '1',
  '999999999',
  '0',
  '-1',
  '1.5',
  'abc',
  '1e400',
  '%27%20OR%201%3D1',
  ...['constructor', '__proto__', 'toString'],
  'x'.repeat(300),
];

export interface BodyCase {
  name: string;
  contentType: string;
  payload: string;
}

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const json = (name: string, value: unknown): BodyCase => ({
  name,
  contentType: 'application/json',
  payload: JSON.stringify(value),
});

/** The first case is the empty object every action without a body sends. */
export const BODY_CASES: BodyCase[] = [
  json('empty object', {}),
  { name: 'broken JSON', contentType: 'application/json', payload: '{"name": "x",' },
  { name: 'JSON of the wrong shape: array', contentType: 'application/json', payload: '[1,2,3]' },
  { name: 'JSON of the wrong shape: string', contentType: 'application/json', payload: '"name"' },
  { name: 'JSON of the wrong shape: null', contentType: 'application/json', payload: 'null' },
  { name: 'JSON of the wrong shape: number', contentType: 'application/json', payload: '42' },
  {
    name: 'prototype keys',
    contentType: 'application/json',
    payload:
      '{"__proto__":{"admin":true,"type":"admin"},"constructor":{"prototype":{"polluted":1}},"toString":"x","valueOf":1,"hasOwnProperty":"y","name":"proto"}',
  },
  json('wrong types', {
    name: 123,
    status: 'on',
    tenantId: '1',
    id: 'x',
    username: {},
    email: 1,
    password: [],
    priceReq: '1e400',
    floorCpm: -1e308,
    timezone: 'UTC',
    showDsp: 'yes',
    rules: 'all',
    demand: {},
    mediaFiles: 'a.mp4',
    postbidMaxImps: -1,
    tabs: 'true',
    contacts: {},
  }),
  // names every object inherits, as values a lookup table is read with (a report's metrics were taken for known ones: a 500)
  json('prototype names as report fields', {
    startDate: '2026-11-01',
    endDate: '2026-11-01',
    metrics: ['imps', 'toString'],
    dimensions: [],
    sort: { by: 'imps' },
  }),
  json('prototype names as values', {
    startDate: '2026-11-01',
    endDate: '2026-11-01',
    metrics: ['imps'],
    dimensions: ['constructor'],
    sort: { by: 'valueOf' },
    filters: { hasOwnProperty: [1] },
    name: 'constructor',
    kind: 'constructor',
    action: 'toString',
    type: '__proto__',
    status: 'valueOf',
    format: 'hasOwnProperty',
    mode: 'constructor',
    ids: [1],
  }),
  json('injection strings', {
    name: INJECTIONS[0],
    username: "admin'--",
    email: "a@b.c' OR '1'='1",
    search: INJECTIONS[2],
    key: INJECTIONS[3],
    url: 'javascript:alert(1)',
  }),
  {
    name: 'deeply nested',
    contentType: 'application/json',
    payload: `{"name":"deep","rules":${nested(3_000)},"data":${nested(3_000)}}`,
  },
  json('oversized values', {
    name: 'x'.repeat(100_000),
    username: 'u'.repeat(10_000),
    ids: Array.from({ length: 50_000 }, (_, i) => i),
  }),
  { name: 'body over the size limit', contentType: 'application/json', payload: `{"name":"${'x'.repeat(1_200_000)}"}` },
  { name: 'text/plain', contentType: 'text/plain', payload: '{}' },
  { name: 'form', contentType: 'application/x-www-form-urlencoded', payload: 'name=x&__proto__[admin]=1' },
];

import type { z } from 'zod';
import type { Mode } from '../constants.js';
import type { UserType } from '../schemas/auth.js';
import type { RowHead, SkipSink, StoredRow } from './storedRow.js';

/**
 * One data contract for every resource (list, get, create, update, duplicate, archive): the server
 * builds its routes and repository from these definitions, the console its list pages and forms.
 */
export type ResourceKind =
  | 'channels'
  | 'subs'
  | 'tags'
  | 'sups'
  | 'campaigns'
  | 'creatives'
  | 'adexchanges'
  | 'deals'
  | 'supplydeals'
  | 'advs'
  | 'targetings'
  | 'applists'
  | 'publists'
  | 'crelists'
  | 'iplists'
  | 'ivts'
  | 'managers'
  | 'demands'
  | 'tooltips'
  | 'sdkapps';

/** A reference from one row to another, for integrity checks and "used by" answers. */
export interface ResourceRef {
  kind: ResourceKind;
  /** The field as named in errors. */
  field: string;
  ids: (row: Record<string, unknown>) => number[];
}

export interface ResourceDef {
  kind: ResourceKind;
  label: string;
  plural: string;
  /** Console route of the list page. */
  route: string;
  /** API base path; the shared list is `${api}/list`. */
  api: string;
  /** ssp, dsp or both: which console mode shows it. */
  mode: Mode | 'both';
  /** Where rows live: the generic entity tables, or the users table (accounts sign in). */
  storage: 'entity' | 'account';
  accountType?: UserType;
  /** Who may open it: demand users of the tenant (and admins), admins only, or sdk users. */
  audience: 'tenant' | 'admin' | 'sdk';
  /** Public id generated on create (tag URLs, bidder endpoints, app keys). */
  uid: boolean;
  schema: z.ZodType<Record<string, unknown>>;
  refs: ResourceRef[];
  /** A row assigned to a sub or adv user through this field is visible (read-only) to that user. */
  assignedTo?: { sub?: string; adv?: string };
  /** Columns the list page sorts by (besides id, name, status, updatedAt). */
  sortable?: string[];
  /** Sortable fields that may hold 'unlimited', which sorts above every number on both engines. */
  unlimitedSortable?: string[];
  /** What the kind's shared list carries besides id, name, uid and status (from its stored document). */
  listExtras?: (data: Record<string, unknown>) => Record<string, unknown>;
  /** The field whose value is the row's name column when the kind has no `name` (tooltips: `key`). */
  nameFrom?: string;
  /**
   * Rules that need the database, carried out by the generic server engine: a field whose value no
   * other live (not archived) row of the same tenant may hold, with the message naming the other row.
   */
  unique?: { field: string; message: (otherId: number) => string }[];
  /**
   * Fields an update (PUT) keeps from the stored document when its body names none of them: a choice
   * the user made (a campaign's `channelScope`, required on create, with its `channelIds`) is never
   * replaced by a default because a client left it out. A body naming any of them is read as sent.
   */
  keptOnUpdate?: readonly string[];
  /** The typed parser of a stored row (entity kinds): null, skipped and counted, when the schema rejects it. */
  parseRow?: (row: StoredRow, sink?: SkipSink) => RowHead | null;
  /** Other paths the shared names list is also served under (channelNames, tagnames). */
  namesApi?: string;
}

export const one = (field: string) => (row: Record<string, unknown>) =>
  typeof row[field] === 'number' ? [row[field] as number] : [];
export const many = (field: string) => (row: Record<string, unknown>) =>
  Array.isArray(row[field]) ? (row[field] as number[]) : [];
export const targetingRef: ResourceRef = { kind: 'targetings', field: 'targetingId', ids: one('targetingId') };
export const advertiserRef: ResourceRef = { kind: 'advs', field: 'advertiserId', ids: one('advertiserId') };
export const ruleLists = (key: 'appLists' | 'pubLists' | 'creLists' | 'ipLists') => (row: Record<string, unknown>) => {
  const rules = row.rules as Record<string, { ids?: number[] }> | undefined;
  return rules?.[key]?.ids ?? [];
};

/** A kind's definition; the schema's own input type is widened to the registry's. */
export const defineKind = (d: Omit<ResourceDef, 'schema'> & { schema: z.ZodType }): ResourceDef => d as ResourceDef;

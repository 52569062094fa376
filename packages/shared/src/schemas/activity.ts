/** What the User Activity log records about a change (GET /api/activity answers these, newest first). */
export const ACTIVITY_ACTIONS = ['create', 'update', 'duplicate', 'archive', 'restore', 'delete'] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

export interface ActivityEntry {
  id: number;
  tenantId: number | null;
  userId: number | null;
  /** Who made the change, as named now (null when the account is gone). */
  userName: string | null;
  /** The admin acting as the user, while impersonating. */
  adminId: number | null;
  adminName: string | null;
  /** The resource kind of packages/shared's registry. */
  kind: string;
  entityId: number | null;
  action: string;
  before: unknown;
  after: unknown;
  at: string;
}

import { type StoredRow } from '@adplane/shared';

/** A stored row of tenant 1 as the config store hands it to a kind's typed parser: active, named `Row <id>`. */
export const storedRow = (id: number, data: Record<string, unknown>, meta: Partial<StoredRow> = {}): StoredRow => ({
  id,
  tenantId: 1,
  uid: null,
  status: 1,
  archived: false,
  name: `Row ${id}`,
  data,
  ...meta,
});

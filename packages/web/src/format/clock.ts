import { useCallback } from 'react';
import { formatUserDateTime } from '@adplane/shared';
import { useAuth } from '../auth/authContext.js';

/**
 * The console's one clock: every stored time shown to the signed-in user goes through this, so a
 * list row, its drawer, the activity log, saved reports and the bell read the same
 * `YYYY-MM-DD HH:mm UTC+2` in the user's own offset (packages/shared format.ts). A profile change of
 * time zone takes effect at once, since the offset is read from the signed-in user.
 */
export function useClock(): (value: Date | string | number | null | undefined) => string {
  const { user } = useAuth();
  const offset = user?.timezone ?? 0;
  return useCallback((value) => formatUserDateTime(value, offset), [offset]);
}

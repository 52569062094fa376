import { useEffect, useState } from 'react';
import { Tooltip } from 'antd';
import { type AuthUser, formatDate, formatMetric, formatTimezone } from '@adplane/shared';
import { reportsApi } from '../api/reports.js';

/** How often the navigation re-reads the month-to-date cost while the console is open. */
const REFRESH_MS = 5 * 60_000;

/** Start of month to today in the user's zone: the report request for the system cost. */
function monthToDateRequest(timezone: number, now = Date.now()) {
  const today = formatDate(now, timezone);
  return { startDate: `${today.slice(0, 8)}01`, endDate: today, timezone, metrics: ['systemCost' as const], limit: 1 };
}

/**
 * The month-to-date system cost in the navigation, for users with showSystemCost:
 * the last element of POST /api/rrun's answer, in USD.
 */
export function MonthToDateCost({ user }: { user: AuthUser }) {
  const [cost, setCost] = useState<number | null>(null);
  const timezone = user.timezone ?? 0;
  useEffect(() => {
    let alive = true;
    const load = () =>
      reportsApi
        .run(monthToDateRequest(timezone), { silent: true })
        .then((rows) => alive && setCost(Number(rows.at(-1)?.systemCost ?? 0)))
        .catch((error: unknown) => console.error('Month-to-date system cost failed', error));
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [timezone]);
  if (cost === null) return null;
  return (
    <Tooltip title={`Platform fee from the 1st of this month to today (${formatTimezone(timezone)})`}>
      <span className="app-mtd-cost" data-testid="mtd-system-cost">
        MTD cost {formatMetric('systemCost', cost)}
      </span>
    </Tooltip>
  );
}

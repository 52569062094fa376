import { type DashboardAnswer, type FinanceAnswer, type Mode, ServerClock } from '@adplane/shared';
import { api } from './client.js';

export const statsApi = {
  /** The dashboard of the console's view: its top lists are the view's (GET /api/dashboard?view=). */
  dashboard: (view: Mode) => api.get<DashboardAnswer>(`/api/dashboard?view=${view}`),
  finance: (month: string) => api.get<FinanceAnswer>(`/api/finance?month=${encodeURIComponent(month)}`),
  /** The server's time (GET /api/clock), checked against the contract: which hour it is still counting. */
  clock: async () => ServerClock.parse(await api.get<unknown>('/api/clock', { silent: true })),
};

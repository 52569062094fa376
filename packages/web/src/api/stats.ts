import { type DashboardAnswer, type FinanceAnswer, type Mode } from '@adplane/shared';
import { api } from './client.js';

export const statsApi = {
  /** The dashboard of the console's view: its top lists are the view's (GET /api/dashboard?view=). */
  dashboard: (view: Mode) => api.get<DashboardAnswer>(`/api/dashboard?view=${view}`),
  finance: (month: string) => api.get<FinanceAnswer>(`/api/finance?month=${encodeURIComponent(month)}`),
};

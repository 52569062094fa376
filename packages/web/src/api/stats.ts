import { type DashboardAnswer, type FinanceAnswer } from '@adplane/shared';
import { api } from './client.js';

export const statsApi = {
  dashboard: () => api.get<DashboardAnswer>('/api/dashboard'),
  finance: (month: string) => api.get<FinanceAnswer>(`/api/finance?month=${encodeURIComponent(month)}`),
};

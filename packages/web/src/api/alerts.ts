import { type AlertEpisode, type AlertRule, type AlertRuleInputIn } from '@adplane/shared';
import { api } from './client.js';

/** The alert calls of the API (docs/alerts.md): the tenant's rules and their episodes. */
export const alertsApi = {
  rules: () => api.get<AlertRule[]>('/api/alerts/rules'),
  create: (rule: AlertRuleInputIn) => api.post<AlertRule>('/api/alerts/rules', rule),
  update: (id: number, rule: AlertRuleInputIn) => api.put<AlertRule>(`/api/alerts/rules/${id}`, rule),
  remove: (id: number) => api.delete<void>(`/api/alerts/rules/${id}`),
  episodes: (options: { ruleId?: number; open?: boolean; limit?: number; silent?: boolean } = {}) => {
    const query = new URLSearchParams();
    if (options.ruleId !== undefined) query.set('ruleId', String(options.ruleId));
    if (options.open) query.set('open', '1');
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const qs = query.toString();
    return api.get<AlertEpisode[]>(`/api/alerts/episodes${qs ? `?${qs}` : ''}`, { silent: options.silent });
  },
};

import { type ReportRequestInput, type ReportRow, type SavedReport } from '@adplane/shared';
import { api } from './client.js';

/** The report calls of the API, one place for every page that runs or saves a report. */
export const reportsApi = {
  run: (request: ReportRequestInput, options?: { silent?: boolean; signal?: AbortSignal }) =>
    api.post<ReportRow[]>('/api/rrun', request, options),
  toFile: (name: string, request: ReportRequestInput) => api.post<SavedReport>('/api/rfile', { name, request }),
  list: (options: { last?: number; all?: boolean; silent?: boolean } = {}) => {
    const query = new URLSearchParams();
    if (options.last !== undefined) query.set('last', String(options.last));
    if (options.all) query.set('all', '1');
    const qs = query.toString();
    return api.get<SavedReport[]>(`/api/savedReports${qs ? `?${qs}` : ''}`, { silent: options.silent });
  },
  get: (id: number, options?: { silent?: boolean }) => api.get<SavedReport>(`/api/savedReport/${id}`, options),
  save: (name: string, request: ReportRequestInput) => api.post<SavedReport>('/api/savedReports', { name, request }),
  update: (id: number, patch: { name?: string; archived?: boolean; request?: ReportRequestInput }) =>
    api.put<SavedReport>(`/api/savedReport/${id}`, patch),
  remove: (id: number) => api.delete<{ ok: true }>(`/api/savedReport/${id}`),
  fileUrl: (id: number) => `/api/savedFile/${id}`,
};

/** Where a saved report opens from the bell: a file downloads, a post-bid report opens /pbReport. */
export function savedReportHref(report: Pick<SavedReport, 'id' | 'file' | 'ivt'>): string {
  if (report.file) return reportsApi.fileUrl(report.id);
  return report.ivt ? `/pbReport/${report.id}?saved=1` : `/report/${report.id}?saved=1`;
}

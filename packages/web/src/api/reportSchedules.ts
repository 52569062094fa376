import { type ReportSchedule, type ReportScheduleInput, type ReportScheduleList } from '@adplane/shared';
import { api } from './client.js';

/** Schedules of a saved report (docs/reports.md, "Schedules"). */
export const schedulesApi = {
  list: (reportId: number) => api.get<ReportScheduleList>(`/api/savedReport/${reportId}/schedules`),
  create: (reportId: number, input: ReportScheduleInput) =>
    api.post<ReportSchedule>(`/api/savedReport/${reportId}/schedules`, input),
  update: (id: number, input: ReportScheduleInput) => api.put<ReportSchedule>(`/api/reportSchedule/${id}`, input),
  remove: (id: number) => api.delete<{ ok: true }>(`/api/reportSchedule/${id}`),
};

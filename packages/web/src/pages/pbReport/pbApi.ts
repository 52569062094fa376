import { type PostbidSetup, type ReportRequestInput, type ReportRow, type SavedReport } from '@adplane/shared';
import { api } from '../../api/client.js';

/** The postbid report's calls (docs/reports.md): run, the month's allowances and postback URL, save as a postbid (ivt) report. */
export const pbApi = {
  run: (request: ReportRequestInput) => api.post<ReportRow[]>('/api/pbrun', request),
  setup: () => api.get<PostbidSetup>('/api/pbSetup', { silent: true }),
  save: (name: string, request: ReportRequestInput) =>
    api.post<SavedReport>('/api/savedReports', { name, request, ivt: true }),
};

import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { Alert, App, Button, Card, Empty, Modal, Space, Spin, Typography } from 'antd';
import { DownloadOutlined, FileTextOutlined, PlayCircleOutlined, SaveOutlined } from '@ant-design/icons';
import { formatHour, REPORT_NAME_MAX, type ReportRow, reportCsv, type SavedReport } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { announceSavedReports, fileWaitText } from '../../layout/savedReportsFeed.js';
import { reportsApi } from '../../api/reports.js';
import { statsApi } from '../../api/stats.js';
import { errorText } from '../../errors/messages.js';
import { notifySaveError } from '../../errors/notify.js';
import { ReportChart } from './ReportChart.js';
import { ReportFormCard } from './ReportFormCard.js';
import { ReportTable } from './ReportTable.js';
import {
  changeForm,
  defaultForm,
  fromRequest,
  MARKET_REPORT_NAME,
  marketReportForm,
  type ReportForm,
  toRequest,
  visibleForm,
} from './reportState.js';
import { DataCredits } from '../../components/DataCredits.js';
import { LengthNote, LimitedInput } from '../../resources/formParts.js';

function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/**
 * Create Report (`/report/{id?}`): pick dates, zone, dimensions, metrics and filters, run, read the
 * chart and the table with totals, export CSV, save under a name or send a long one to a file.
 * `/report/{id}?saved=1` opens a saved report; `/report?store=1` is the Market report helper.
 */
export default function ReportPage() {
  const user = useUser();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { id } = useParams();
  const [search] = useSearchParams();
  const savedId = id ? Number(id) : null;
  const market = search.get('store') === '1';
  const [form, setForm] = useState<ReportForm>(() =>
    visibleForm(market ? marketReportForm(user.timezone ?? 0) : defaultForm(user.timezone ?? 0), user),
  );
  const [saved, setSaved] = useState<SavedReport | null>(null);
  const [rows, setRows] = useState<ReportRow[] | null>(null);
  const [ran, setRan] = useState<ReportForm | null>(null);
  const [partialHour, setPartialHour] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saveOpen, setSaveOpen] = useState<'save' | 'file' | null>(null);
  const [name, setName] = useState('');
  const latest = useRef(0);

  const run = useCallback(async (what: ReportForm) => {
    const ticket = ++latest.current;
    setRunning(true);
    setError(null);
    try {
      // A report by hour also asks the server which hour it is still counting (its clock, not the
      // browser's): the chart marks that hour partial. Without the answer nothing is marked.
      const [answer, clock] = await Promise.all([
        reportsApi.run(toRequest(what)),
        what.dimensions.includes('hour') ? statsApi.clock().catch(() => null) : null,
      ]);
      if (ticket !== latest.current) return;
      setRows(answer);
      setRan(what);
      setPartialHour(clock ? formatHour(clock.now, what.timezone) : null);
    } catch (e) {
      if (ticket === latest.current) setError(errorText(e));
    } finally {
      if (ticket === latest.current) setRunning(false);
    }
  }, []);

  // A saved report or the market helper runs as soon as it opens.
  useEffect(() => {
    if (market) {
      void run(visibleForm(marketReportForm(user.timezone ?? 0), user));
      return;
    }
    if (savedId === null) return;
    reportsApi
      .get(savedId)
      .then((report) => {
        setSaved(report);
        if (report.request) {
          // a report saved before may hold numbers the user may no longer see: they are left out, not run
          const next = visibleForm(fromRequest(report.request, user.timezone ?? 0), user);
          setForm(next);
          if (search.get('saved') === '1') void run(next);
        }
      })
      .catch((e: unknown) => setError(`The saved report could not be opened: ${errorText(e)}`));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [savedId, market]);

  const title = market ? MARKET_REPORT_NAME : saved ? saved.name : 'Create Report';

  const submitName = async () => {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > REPORT_NAME_MAX) return;
    try {
      if (saveOpen === 'file') {
        const file = await reportsApi.toFile(trimmed, toRequest(form));
        void message.success(
          file.status === 'waiting'
            ? `The file ${fileWaitText(file.ahead)}: the bell shows its place in line, and the file when ready`
            : 'The report is being written to a file: it appears in the bell when ready',
        );
      } else if (saved && trimmed === saved.name) {
        await reportsApi.update(saved.id, { request: toRequest(form) });
        void message.success('Saved');
      } else {
        const created = await reportsApi.save(trimmed, toRequest(form));
        setSaved(created);
        void message.success(`Saved as "${created.name}"`);
        void navigate(`/report/${created.id}`, { replace: true });
      }
      announceSavedReports();
      setSaveOpen(null);
    } catch (e) {
      notifySaveError(e);
    }
  };

  const exportCsv = () => {
    if (!rows || !ran) return;
    downloadText(
      `${title.replace(/[^\w .-]+/g, '_')} ${ran.startDate} to ${ran.endDate}.csv`,
      reportCsv(ran.dimensions, ran.metrics, rows),
    );
  };

  return (
    <div className="report-page" data-testid="report-page">
      <div className="page-head">
        <Typography.Title level={3} data-testid="report-title">
          {title}
        </Typography.Title>
        <Space wrap>
          <Button
            type="primary"
            icon={<PlayCircleOutlined />}
            loading={running}
            disabled={form.metrics.length === 0}
            onClick={() => void run(form)}
            data-testid="report-run"
          >
            Run report
          </Button>
          <Button icon={<DownloadOutlined />} disabled={!rows} onClick={exportCsv} data-testid="report-export">
            Export CSV
          </Button>
          <Button
            icon={<SaveOutlined />}
            disabled={form.metrics.length === 0}
            onClick={() => {
              setName(saved?.name ?? '');
              setSaveOpen('save');
            }}
            data-testid="report-save"
          >
            Save
          </Button>
          <Button
            icon={<FileTextOutlined />}
            disabled={form.metrics.length === 0}
            onClick={() => {
              setName(`${title} ${form.startDate} to ${form.endDate}`);
              setSaveOpen('file');
            }}
            data-testid="report-to-file"
          >
            Run to file
          </Button>
        </Space>
      </div>
      <Card size="small" className="report-form-card">
        <ReportFormCard user={user} form={form} onChange={(patch) => setForm((f) => changeForm(f, patch))} />
      </Card>
      {error && (
        <Alert
          type="error"
          showIcon
          title="The report could not run"
          description={error}
          className="report-error"
          data-testid="report-error"
        />
      )}
      <Spin spinning={running}>
        {rows && ran ? (
          <div className="report-results">
            <ReportChart
              rows={rows}
              dimensions={ran.dimensions}
              metrics={ran.metrics}
              timezone={ran.timezone}
              partialHour={partialHour}
            />
            <ReportTable rows={rows} dimensions={ran.dimensions} metrics={ran.metrics} timezone={ran.timezone} />
            <DataCredits />
          </div>
        ) : (
          <Empty className="report-empty" description="Pick dimensions and metrics, then run the report" />
        )}
      </Spin>
      <Modal
        open={saveOpen !== null}
        title={saveOpen === 'file' ? 'Run the report to a CSV file' : 'Save report'}
        okText={saveOpen === 'file' ? 'Start' : 'Save'}
        okButtonProps={{
          disabled: name.trim() === '' || name.trim().length > REPORT_NAME_MAX,
          ...({ 'data-testid': 'report-name-ok' } as object),
        }}
        onOk={() => void submitName()}
        onCancel={() => setSaveOpen(null)}
        destroyOnHidden
      >
        <LimitedInput
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Report name"
          max={REPORT_NAME_MAX}
          onPressEnter={() => void submitName()}
          data-testid="report-name"
          autoFocus
        />
        <LengthNote value={name} max={REPORT_NAME_MAX} />
        {saveOpen === 'file' && (
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
            Long reports (up to a million rows) run in the background; the file lands in the bell.
          </Typography.Paragraph>
        )}
      </Modal>
    </div>
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { Alert, App, Button, Card, Descriptions, Empty, Modal, Result, Space, Spin, Typography } from 'antd';
import { DownloadOutlined, PlayCircleOutlined, SaveOutlined } from '@ant-design/icons';
import {
  POSTBID_DIMENSIONS,
  POSTBID_METRICS,
  postbidReportRefusal,
  REPORT_NAME_MAX,
  type PostbidSetup,
  type ReportRow,
  reportCsv,
  type SavedReport,
} from '@adplane/shared';
import { reportsApi } from '../../api/reports.js';
import { useUser } from '../../auth/authContext.js';
import { errorText } from '../../errors/messages.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { announceSavedReports } from '../../layout/savedReportsFeed.js';
import { ReportChart } from '../report/ReportChart.js';
import { ReportFormCard } from '../report/ReportFormCard.js';
import { ReportTable } from '../report/ReportTable.js';
import { fromRequest, type ReportForm, toRequest } from '../report/reportState.js';
import { pbApi } from './pbApi.js';
import { defaultPostbidForm, impressionCapText, keepPostbid, reportAllowanceText } from './pbReportForm.js';
import { DataCredits } from '../../components/DataCredits.js';
import { EmptyValue } from '../../components/EmptyValue.js';
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
 * Postbid Report (`/pbReport/{id?}`, docs/reports.md): the post-bid pixels' results, the share of scanned
 * impressions their vendors flagged as invalid traffic, by any dimension an impression carries.
 * Built from the report page's parts (dates, zone, dimensions, filters, chart, table, CSV) over
 * POST /api/pbrun; saved as a postbid (ivt) report that the bell opens at `/pbReport/{id}?saved=1`,
 * within the account's monthly allowance, shown above the form with the postback URL for vendors.
 */
export default function PbReportPage() {
  const user = useUser();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { id } = useParams();
  const [search] = useSearchParams();
  const savedId = id ? Number(id) : null;
  const refusal = postbidReportRefusal(user);
  const [form, setForm] = useState<ReportForm>(() => defaultPostbidForm(user.timezone ?? 0));
  const [saved, setSaved] = useState<SavedReport | null>(null);
  const [setup, setSetup] = useState<PostbidSetup | null>(null);
  const [rows, setRows] = useState<ReportRow[] | null>(null);
  const [ran, setRan] = useState<ReportForm | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saveOpen, setSaveOpen] = useState(false);
  const [name, setName] = useState('');
  const latest = useRef(0);

  const run = useCallback(async (what: ReportForm) => {
    const ticket = ++latest.current;
    setRunning(true);
    setError(null);
    try {
      const answer = await pbApi.run(toRequest(what));
      if (ticket !== latest.current) return;
      setRows(answer);
      setRan(what);
    } catch (e) {
      if (ticket === latest.current) setError(errorText(e));
    } finally {
      if (ticket === latest.current) setRunning(false);
    }
  }, []);

  const loadSetup = useCallback(() => {
    pbApi
      .setup()
      .then(setSetup)
      .catch(() => setSetup(null));
  }, []);

  useEffect(() => {
    if (refusal) return;
    loadSetup();
    if (savedId === null) return;
    reportsApi
      .get(savedId)
      .then((report) => {
        setSaved(report);
        if (report.request) {
          const next = keepPostbid(fromRequest(report.request, user.timezone ?? 0));
          setForm(next);
          if (search.get('saved') === '1') void run(next);
        }
      })
      .catch(notifyLoadError);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [savedId]);

  if (refusal) {
    return <Result status="403" title="Postbid Report" subTitle={refusal} data-testid="pb-report-refused" />;
  }

  const title = saved ? saved.name : 'Postbid Report';
  const full = !!setup && setup.maxReports > 0 && setup.reportsSaved >= setup.maxReports;

  const submitName = async () => {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > REPORT_NAME_MAX) return;
    try {
      if (saved && trimmed === saved.name) {
        // the same report changed: no new place of the monthly allowance
        await reportsApi.update(saved.id, { request: toRequest(form) });
        void message.success('Saved');
      } else {
        const created = await pbApi.save(trimmed, toRequest(form));
        setSaved(created);
        void message.success(`Saved as "${created.name}"`);
        void navigate(`/pbReport/${created.id}`, { replace: true });
      }
      announceSavedReports();
      setSaveOpen(false);
      loadSetup();
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
    <div className="report-page" data-testid="pb-report-page">
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
            title={
              full
                ? 'The monthly limit of saved postbid reports is reached; changes to an open saved report can still be saved'
                : undefined
            }
            onClick={() => {
              setName(saved?.name ?? '');
              setSaveOpen(true);
            }}
            data-testid="report-save"
          >
            Save
          </Button>
        </Space>
      </div>
      <Card size="small" className="report-form-card" style={{ marginBottom: 12 }} data-testid="pb-setup">
        <Descriptions size="small" column={{ xs: 1, md: 3 }}>
          <Descriptions.Item label="Saved postbid reports">
            {setup ? reportAllowanceText(setup) : <EmptyValue />}
          </Descriptions.Item>
          <Descriptions.Item label="Post-bid pixels">
            {setup ? impressionCapText(setup.maxImps) : <EmptyValue />}
          </Descriptions.Item>
          <Descriptions.Item label="Postback URL for your vendors">
            {setup?.postbackUrl ? (
              <Typography.Text copyable code ellipsis style={{ maxWidth: 360 }} data-testid="pb-postback-url">
                {`${setup.postbackUrl}?id={{impression_id}}&ivt=1`}
              </Typography.Text>
            ) : (
              'each account has its own'
            )}
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card size="small" className="report-form-card">
        <ReportFormCard
          user={user}
          form={form}
          onChange={(patch) => setForm((f) => ({ ...f, ...patch }))}
          dimensionChoices={POSTBID_DIMENSIONS}
          metricChoices={POSTBID_METRICS}
          showHideErrors={false}
        />
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
            <ReportChart rows={rows} dimensions={ran.dimensions} metrics={ran.metrics} />
            <ReportTable rows={rows} dimensions={ran.dimensions} metrics={ran.metrics} timezone={ran.timezone} />
            <DataCredits />
          </div>
        ) : (
          <Empty
            className="report-empty"
            description="Pick dimensions, then run the report: post-bid impressions, those the vendors flagged, and the IVT rate"
          />
        )}
      </Spin>
      <Modal
        open={saveOpen}
        title="Save postbid report"
        okText="Save"
        okButtonProps={{
          disabled: name.trim() === '' || name.trim().length > REPORT_NAME_MAX,
          ...({ 'data-testid': 'report-name-ok' } as object),
        }}
        onOk={() => void submitName()}
        onCancel={() => setSaveOpen(false)}
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
        {setup && setup.maxReports > 0 && (
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
            A new name saves a new report: {reportAllowanceText(setup)}.
          </Typography.Paragraph>
        )}
      </Modal>
    </div>
  );
}

import { useCallback, useEffect, useMemo, useState } from 'react';
import {
  Alert,
  App,
  Button,
  Checkbox,
  Descriptions,
  Drawer,
  Empty,
  Form,
  Input,
  InputNumber,
  Popconfirm,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import {
  type ReportSchedule,
  type ReportScheduleInput,
  type ReportScheduleList,
  type SavedReport,
  SCHEDULES_PER_REPORT_MAX,
} from '@adplane/shared';
import { schedulesApi } from '../../api/reportSchedules.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { useClock } from '../../format/clock.js';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number) => String(n).padStart(2, '0');
const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: h, label: `${pad(h)}:00` }));

/** The browser's time zone, the one a new schedule starts in. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const ZONES: string[] = (() => {
  const all = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return all.includes('UTC') ? all : ['UTC', ...all];
})();

/** "Daily at 06:00", "Mondays at 08:00", "Monthly on the 31st (or the month's last day) at 00:00", with its zone. */
function scheduleText(s: Pick<ReportSchedule, 'frequency' | 'hour' | 'weekday' | 'monthDay' | 'timeZone'>): string {
  const at = `at ${pad(s.hour)}:00 ${s.timeZone}`;
  if (s.frequency === 'weekly') return `${WEEKDAYS[s.weekday ?? 0]}s ${at}`;
  if (s.frequency === 'monthly') {
    const day = s.monthDay ?? 1;
    return `Monthly on day ${day}${day > 28 ? " (or the month's last day)" : ''} ${at}`;
  }
  return `Daily ${at}`;
}

const EMPTY: ReportScheduleInput = {
  frequency: 'daily',
  hour: 6,
  weekday: 1,
  monthDay: 1,
  timeZone: browserZone(),
  formats: ['csv'],
  emails: [],
  webhookUrl: null,
  enabled: true,
};

function outcomeTag(s: ReportSchedule) {
  if (s.lastOutcome === 'ok') return <Tag color="green">Sent</Tag>;
  if (s.lastOutcome === 'failed') return <Tag color="red">Failed</Tag>;
  return <Tag>Not run yet</Tag>;
}

/**
 * The schedules of a saved report, in a drawer of the Saved Reports page: each with when it runs,
 * its next run, how the last run went and what its e-mails and webhook calls did; a form to add or
 * change one; and, when the server has no mail settings, a notice that e-mails are not sent.
 */
export function ReportSchedulesDrawer({ report, onClose }: { report: SavedReport | null; onClose: () => void }) {
  const { message } = App.useApp();
  const clock = useClock();
  const [list, setList] = useState<ReportScheduleList | null>(null);
  const [editing, setEditing] = useState<ReportSchedule | 'new' | null>(null);
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm<ReportScheduleInput>();
  const frequency = Form.useWatch('frequency', form);

  const load = useCallback(() => {
    if (!report) return;
    schedulesApi.list(report.id).then(setList).catch(notifyLoadError);
  }, [report]);
  useEffect(() => {
    setList(null);
    setEditing(null);
    load();
  }, [load]);

  const startEdit = (s: ReportSchedule | 'new') => {
    setEditing(s);
    form.setFieldsValue(
      s === 'new'
        ? EMPTY
        : {
            frequency: s.frequency,
            hour: s.hour,
            weekday: s.weekday ?? 1,
            monthDay: s.monthDay ?? 1,
            timeZone: s.timeZone,
            formats: s.formats,
            emails: s.emails,
            webhookUrl: s.webhookUrl,
            enabled: s.enabled,
          },
    );
  };

  const save = async () => {
    if (!report || editing === null) return;
    const v = await form.validateFields();
    const input: ReportScheduleInput = {
      ...v,
      weekday: v.frequency === 'weekly' ? v.weekday : null,
      monthDay: v.frequency === 'monthly' ? v.monthDay : null,
      webhookUrl: v.webhookUrl?.trim() ? v.webhookUrl.trim() : null,
      emails: v.emails ?? [],
    };
    setSaving(true);
    try {
      if (editing === 'new') await schedulesApi.create(report.id, input);
      else await schedulesApi.update(editing.id, input);
      void message.success('Schedule saved');
      setEditing(null);
      load();
    } catch (e) {
      notifySaveError(e);
    } finally {
      setSaving(false);
    }
  };

  const zoneOptions = useMemo(() => ZONES.map((z) => ({ value: z, label: z })), []);
  const schedules = list?.schedules ?? [];

  return (
    <Drawer
      open={report !== null}
      onClose={onClose}
      title={report ? `Schedules of "${report.name}"` : ''}
      size="large"
      destroyOnHidden
      data-testid="schedules-drawer"
    >
      {list && !list.mailOn ? (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          data-testid="schedules-mail-off"
          title="Mail is off"
          description="This server has no mail settings (ADPLANE_SMTP_URL, ADPLANE_MAIL_FROM): schedules still run into the bell and call their webhooks, but send no e-mail."
        />
      ) : null}
      <Typography.Paragraph type="secondary">
        Each run writes the report's file to the bell (its rolling dates as of the run) and sends it to the addresses
        and the webhook below. A failed e-mail or webhook call is tried again after 1, 5, 25 and 125 minutes.
      </Typography.Paragraph>
      {list !== null && schedules.length === 0 && editing === null ? <Empty description="No schedules yet" /> : null}
      {schedules.map((s) => (
        <div key={s.id} className="schedule-card" data-testid={`schedule-${s.id}`} style={{ marginBottom: 16 }}>
          <Descriptions
            size="small"
            bordered
            column={1}
            title={
              <Space>
                <span data-testid={`schedule-when-${s.id}`}>{scheduleText(s)}</span>
                {s.enabled ? null : <Tag>Paused</Tag>}
              </Space>
            }
            extra={
              <Space>
                <Button
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => startEdit(s)}
                  data-testid={`schedule-edit-${s.id}`}
                >
                  Edit
                </Button>
                <Popconfirm
                  title="Delete this schedule?"
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  onConfirm={() => void schedulesApi.remove(s.id).then(load).catch(notifySaveError)}
                >
                  <Button size="small" danger icon={<DeleteOutlined />} data-testid={`schedule-delete-${s.id}`}>
                    Delete
                  </Button>
                </Popconfirm>
              </Space>
            }
            items={[
              {
                key: 'next',
                label: 'Next run',
                children: (
                  <span data-testid={`schedule-next-${s.id}`}>{s.enabled ? clock(s.nextRunAt) : 'Paused'}</span>
                ),
              },
              {
                key: 'last',
                label: 'Last run',
                children: (
                  <Space wrap data-testid={`schedule-last-${s.id}`}>
                    {outcomeTag(s)}
                    {s.lastRunAt ? clock(s.lastRunAt) : null}
                    {s.lastError ? <Typography.Text type="danger">{s.lastError}</Typography.Text> : null}
                    {s.failures > 0 ? <span>{`${s.failures} failed in a row, tried again`}</span> : null}
                  </Space>
                ),
              },
              { key: 'formats', label: 'Files', children: s.formats.map((f) => f.toUpperCase()).join(' and ') },
              {
                key: 'to',
                label: 'Sent to',
                children: (
                  <Space orientation="vertical" size={0}>
                    {s.emails.length ? <span>{s.emails.join(', ')}</span> : null}
                    {s.webhookUrl ? <Typography.Text code>{s.webhookUrl}</Typography.Text> : null}
                    {!s.emails.length && !s.webhookUrl ? <span>The bell only</span> : null}
                  </Space>
                ),
              },
              ...(s.deliveries.length
                ? [
                    {
                      key: 'deliveries',
                      label: 'Recent sends',
                      children: (
                        <Space orientation="vertical" size={2} data-testid={`schedule-deliveries-${s.id}`}>
                          {s.deliveries.slice(0, 5).map((d) => (
                            <span key={d.id}>
                              <Tag color={d.status === 'sent' ? 'green' : d.status === 'failed' ? 'red' : 'gold'}>
                                {d.status === 'pending' && d.attempts > 0 ? 'retrying' : d.status}
                              </Tag>
                              {d.kind === 'email' ? 'E-mail' : 'Webhook'} · {clock(d.sentAt ?? d.createdAt)}
                              {d.status === 'pending' && d.attempts > 0 ? ` · next try ${clock(d.nextAt)}` : ''}
                              {d.lastError ? (
                                <Typography.Text type="danger">{` · ${d.lastError}`}</Typography.Text>
                              ) : null}
                            </span>
                          ))}
                        </Space>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        </div>
      ))}
      {editing === null ? (
        <Button
          icon={<PlusOutlined />}
          onClick={() => startEdit('new')}
          disabled={schedules.length >= SCHEDULES_PER_REPORT_MAX}
          data-testid="schedule-add"
        >
          Add schedule
        </Button>
      ) : (
        <Form<ReportScheduleInput> form={form} layout="vertical" data-testid="schedule-form" requiredMark={false}>
          <Typography.Title level={5}>{editing === 'new' ? 'New schedule' : 'Change schedule'}</Typography.Title>
          <Space wrap align="start">
            <Form.Item name="frequency" label="Runs">
              <Select
                style={{ width: 130 }}
                data-testid="schedule-frequency"
                options={[
                  { value: 'daily', label: 'Daily' },
                  { value: 'weekly', label: 'Weekly' },
                  { value: 'monthly', label: 'Monthly' },
                ]}
              />
            </Form.Item>
            {frequency === 'weekly' ? (
              <Form.Item name="weekday" label="On">
                <Select
                  style={{ width: 140 }}
                  options={WEEKDAYS.map((label, value) => ({ value, label }))}
                  data-testid="schedule-weekday"
                />
              </Form.Item>
            ) : null}
            {frequency === 'monthly' ? (
              <Form.Item name="monthDay" label="On day" extra="29-31: a shorter month's last day">
                <InputNumber min={1} max={31} style={{ width: 100 }} />
              </Form.Item>
            ) : null}
            <Form.Item name="hour" label="At">
              <Select style={{ width: 100 }} options={HOURS} data-testid="schedule-hour" />
            </Form.Item>
            <Form.Item name="timeZone" label="Time zone">
              <Select showSearch style={{ width: 240 }} options={zoneOptions} data-testid="schedule-zone" />
            </Form.Item>
          </Space>
          <Form.Item name="formats" label="Files" rules={[{ required: true, message: 'Choose CSV, XLSX or both' }]}>
            <Checkbox.Group
              options={[
                { value: 'csv', label: 'CSV' },
                { value: 'xlsx', label: 'XLSX (Excel)' },
              ]}
              data-testid="schedule-formats"
            />
          </Form.Item>
          <Form.Item
            name="emails"
            label="E-mail to"
            extra={
              list && !list.mailOn
                ? 'Mail is off on this server: these addresses get nothing until it is set up.'
                : undefined
            }
          >
            <Select
              mode="tags"
              tokenSeparators={[',', ' ', ';']}
              open={false}
              placeholder="name@example.com"
              data-testid="schedule-emails"
            />
          </Form.Item>
          <Form.Item
            name="webhookUrl"
            label="Webhook URL"
            extra='POST of JSON with "text" (Slack, Mattermost) and the totals'
          >
            <Input placeholder="https://hooks.example.com/..." data-testid="schedule-webhook" />
          </Form.Item>
          <Form.Item name="enabled" label="Active" valuePropName="checked">
            <Switch />
          </Form.Item>
          <Space>
            <Button type="primary" loading={saving} onClick={() => void save()} data-testid="schedule-save">
              Save schedule
            </Button>
            <Button onClick={() => setEditing(null)}>Cancel</Button>
          </Space>
        </Form>
      )}
    </Drawer>
  );
}

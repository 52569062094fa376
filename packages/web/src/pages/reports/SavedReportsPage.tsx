import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { App, Button, Modal, Popconfirm, Segmented, Space, Table, Tag, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, FieldTimeOutlined, InboxOutlined, RollbackOutlined } from '@ant-design/icons';
import { REPORT_NAME_MAX, type SavedReport } from '@adplane/shared';
import { reportsApi, savedReportHref } from '../../api/reports.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { DELETE_WARNING } from '../../layout/SavedReportsBell.js';
import { fileWaitText } from '../../layout/savedReportsFeed.js';
import { useClock } from '../../format/clock.js';
import { listPagination } from '../../resources/pagination.js';
import { LengthNote, LimitedInput } from '../../resources/formParts.js';
import { savedDatesText } from '../report/reportState.js';
import { ReportSchedulesDrawer } from './ReportSchedules.js';

/** Saved Reports (`/reports`): every saved report and file of the user; open, rename, schedule, archive, delete. */
export default function SavedReportsPage() {
  const { message } = App.useApp();
  const clock = useClock();
  const [reports, setReports] = useState<SavedReport[] | null>(null);
  const [show, setShow] = useState<'active' | 'archived'>('active');
  const [renaming, setRenaming] = useState<SavedReport | null>(null);
  const [name, setName] = useState('');
  const [scheduling, setScheduling] = useState<SavedReport | null>(null);

  const load = useCallback(() => {
    reportsApi.list({ all: true }).then(setReports).catch(notifyLoadError);
  }, []);
  useEffect(load, [load]);

  const change = async (report: SavedReport, patch: { name?: string; archived?: boolean }, done: string) => {
    try {
      await reportsApi.update(report.id, patch);
      void message.success(done);
      load();
    } catch (e) {
      notifySaveError(e);
    }
  };

  const visible = (reports ?? []).filter((r) => r.archived === (show === 'archived'));
  return (
    <div data-testid="saved-reports-page">
      <div className="page-head">
        <Typography.Title level={3}>Saved Reports</Typography.Title>
        <Segmented
          options={[
            { label: 'Active', value: 'active' },
            { label: 'Archived', value: 'archived' },
          ]}
          value={show}
          onChange={(v) => setShow(v as 'active' | 'archived')}
          data-testid="saved-reports-filter"
        />
      </div>
      <Table<SavedReport>
        rowKey="id"
        size="small"
        loading={reports === null}
        dataSource={visible}
        pagination={listPagination()}
        data-testid="saved-reports-table"
        locale={{
          emptyText:
            show === 'archived' ? (
              'No archived reports: reports you archive wait here, out of sight, until you restore them'
            ) : (
              <>
                No saved reports yet: build one on <Link to="/report">Create Report</Link> and click Save, or Run to
                file for a CSV
              </>
            ),
        }}
        columns={[
          {
            key: 'name',
            title: 'Name',
            dataIndex: 'name',
            sorter: (a, b) => a.name.localeCompare(b.name),
            render: (_, r) =>
              r.file ? (
                <a href={savedReportHref(r)} target="_blank" rel="noopener noreferrer">
                  {r.name}
                </a>
              ) : (
                <Link to={savedReportHref(r)}>{r.name}</Link>
              ),
          },
          {
            key: 'dt',
            title: 'Saved',
            dataIndex: 'dt',
            sorter: (a, b) => a.dt.localeCompare(b.dt),
            defaultSortOrder: 'descend',
            render: (dt: string, r) => <span data-testid={`saved-dt-${r.id}`}>{clock(dt)}</span>,
          },
          {
            key: 'kind',
            title: 'Kind',
            render: (_, r) =>
              r.file ? (
                <Tag color="blue">CSV file</Tag>
              ) : r.ivt ? (
                <Tag color="purple">Post-bid report</Tag>
              ) : (
                <Tag>Report</Tag>
              ),
          },
          {
            key: 'dates',
            title: 'Dates',
            // a rolling report's dates are the server's range of its preset today (the list answer computes them)
            render: (_, r) =>
              orEmpty(r.request, (q) => <span data-testid={`saved-dates-${r.id}`}>{savedDatesText(q)}</span>),
          },
          {
            key: 'status',
            title: 'Status',
            render: (_, r) =>
              r.status === 'waiting' ? (
                fileWaitText(r.ahead)
              ) : r.status === 'running' ? (
                `Writing ${r.progress}%`
              ) : r.status === 'failed' ? (
                <Tag color="red">Failed</Tag>
              ) : (
                'Ready'
              ),
          },
          {
            key: 'actions',
            title: '',
            align: 'right',
            render: (_, r) => (
              <Space>
                <Button
                  size="small"
                  icon={<EditOutlined />}
                  onClick={() => {
                    setRenaming(r);
                    setName(r.name);
                  }}
                  data-testid={`saved-rename-${r.id}`}
                >
                  Rename
                </Button>
                {r.file || r.ivt ? null : (
                  <Button
                    size="small"
                    icon={<FieldTimeOutlined />}
                    onClick={() => setScheduling(r)}
                    data-testid={`saved-schedule-${r.id}`}
                  >
                    Schedule
                  </Button>
                )}
                {r.archived ? (
                  <Button
                    size="small"
                    icon={<RollbackOutlined />}
                    onClick={() => void change(r, { archived: false }, 'Restored')}
                  >
                    Restore
                  </Button>
                ) : (
                  <Button
                    size="small"
                    icon={<InboxOutlined />}
                    onClick={() => void change(r, { archived: true }, 'Archived')}
                    data-testid={`saved-archive-${r.id}`}
                  >
                    Archive
                  </Button>
                )}
                <Popconfirm
                  title="Delete this saved report?"
                  description={<div style={{ maxWidth: 260 }}>{DELETE_WARNING}</div>}
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  onConfirm={() => void reportsApi.remove(r.id).then(load).catch(notifySaveError)}
                >
                  <Button size="small" danger icon={<DeleteOutlined />} data-testid={`saved-delete-${r.id}`}>
                    Delete
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <ReportSchedulesDrawer report={scheduling} onClose={() => setScheduling(null)} />
      <Modal
        open={renaming !== null}
        title="Rename report"
        okText="Rename"
        okButtonProps={{ disabled: name.trim() === '' || name.trim().length > REPORT_NAME_MAX }}
        onCancel={() => setRenaming(null)}
        onOk={() => {
          if (renaming) void change(renaming, { name: name.trim() }, 'Renamed').then(() => setRenaming(null));
        }}
        destroyOnHidden
      >
        <LimitedInput
          value={name}
          onChange={(e) => setName(e.target.value)}
          max={REPORT_NAME_MAX}
          data-testid="saved-rename-input"
        />
        <LengthNote value={name} max={REPORT_NAME_MAX} />
      </Modal>
    </div>
  );
}

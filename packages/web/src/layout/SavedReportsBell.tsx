import { Badge, Button, Dropdown, Empty, Popconfirm, Progress, Tag, Tooltip } from 'antd';
import { BellOutlined, DeleteOutlined, FileTextOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { savedReportHref } from '../api/reports.js';
import { type BellEntry, fileWaitText, useSavedReportsFeed } from './savedReportsFeed.js';
import { useClock } from '../format/clock.js';
import { useAuth } from '../auth/authContext.js';
import { alertValueText } from '../pages/alerts/alertText.js';
import { useAlertsFeed } from './alertsFeed.js';

/** The delete confirmation: deletion is permanent, Archive keeps it. */
export const DELETE_WARNING =
  'Deleting is permanent and cannot be undone. To keep the report out of sight instead, archive it on the Saved Reports page.';

function EntryLink({ entry, onOpen }: { entry: BellEntry; onOpen: () => void }) {
  const label = (
    <span className="bell-entry-name">
      {entry.file ? <FileTextOutlined /> : null} {entry.name}
    </span>
  );
  if (entry.file) {
    if (entry.status === 'waiting')
      return (
        <span>
          {label}{' '}
          <span className="bell-entry-waiting" data-testid={`bell-entry-waits-${entry.id}`}>
            {fileWaitText(entry.ahead)}
          </span>
        </span>
      );
    if (entry.status === 'running')
      return (
        <span>
          {label} <Progress percent={entry.progress} size="small" style={{ width: 100 }} />
        </span>
      );
    if (entry.status === 'failed')
      return (
        <Tooltip title={entry.error}>
          <span>{label} (failed)</span>
        </Tooltip>
      );
    return (
      <a
        href={savedReportHref(entry)}
        target="_blank"
        rel="noopener noreferrer"
        onClick={onOpen}
        data-testid={`bell-entry-link-${entry.id}`}
      >
        {label}
      </a>
    );
  }
  return (
    <Link to={savedReportHref(entry)} onClick={onOpen} data-testid={`bell-entry-link-${entry.id}`}>
      {label}
    </Link>
  );
}

/** The bell's alerts: the newest episodes of the tenant's rules, each opening the Alerts page's history. */
function AlertEntries({ alerts }: { alerts: ReturnType<typeof useAlertsFeed> }) {
  const clock = useClock();
  return (
    <div className="bell-section" data-testid="bell-alerts">
      <div className="bell-section-title">
        <span>Alerts</span>
        <Link to="/alerts?tab=history">History</Link>
      </div>
      {alerts.episodes.length === 0 ? (
        <div className="bell-entry-date">No alert has fired</div>
      ) : (
        alerts.episodes.map((e) => (
          <div key={e.id} className="bell-entry" data-testid={`bell-alert-${e.id}`}>
            <div>
              <Link to="/alerts?tab=history">
                <Tag color={e.clearedAt ? 'green' : 'red'}>{e.clearedAt ? 'Cleared' : 'Firing'}</Tag>
                <span className="bell-entry-name">
                  {e.ruleName}: {e.subjectName}
                </span>
              </Link>
              <div className="bell-entry-date">
                {alertValueText(e.metric, e.value)} against {alertValueText(e.metric, e.threshold)}, fired{' '}
                {clock(e.firedAt)}
                {e.clearedAt ? `, cleared ${clock(e.clearedAt)}` : ''}
              </div>
            </div>
          </div>
        ))
      )}
    </div>
  );
}

export function SavedReportsBell() {
  const feed = useSavedReportsFeed();
  const { user } = useAuth();
  const alerts = useAlertsFeed(user?.type === 'demand');
  const clock = useClock();
  const highlighted = feed.highlighted || alerts.highlighted;
  const list = (
    <div className="bell-list ant-dropdown-menu" data-testid="bell-list">
      {user?.type === 'demand' && <AlertEntries alerts={alerts} />}
      {feed.entries.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No saved reports yet" />
      ) : (
        feed.entries.map((entry) => (
          <div
            key={entry.id}
            className={`bell-entry${entry.isNew ? ' bell-entry-new' : ''}`}
            data-testid={`bell-entry-${entry.id}`}
            data-new={entry.isNew ? '1' : '0'}
          >
            <div>
              <EntryLink entry={entry} onOpen={() => feed.markSeen(entry.id)} />
              <div className="bell-entry-date">{clock(entry.dt)}</div>
            </div>
            <Popconfirm
              title="Delete this saved report?"
              description={<div style={{ maxWidth: 260 }}>{DELETE_WARNING}</div>}
              okText="Delete"
              okButtonProps={{ danger: true }}
              onConfirm={() => void feed.remove(entry.id)}
            >
              <Button
                type="text"
                size="small"
                icon={<DeleteOutlined />}
                aria-label={`Delete ${entry.name}`}
                data-testid={`bell-delete-${entry.id}`}
              />
            </Popconfirm>
          </div>
        ))
      )}
    </div>
  );
  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      popupRender={() => list}
      onOpenChange={(open) => {
        if (!open) return;
        feed.clearHighlight();
        alerts.clearHighlight();
      }}
    >
      <Button
        type="text"
        className={`bell-button app-user-button${highlighted ? ' bell-new' : ''}`}
        aria-label="Saved reports"
        data-testid="bell"
        data-highlighted={highlighted ? '1' : '0'}
      >
        <Badge dot={highlighted} offset={[-2, 2]}>
          <BellOutlined style={{ fontSize: 18, color: 'inherit' }} />
        </Badge>
      </Button>
    </Dropdown>
  );
}

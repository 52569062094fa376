import { Button, Collapse, Empty, Skeleton, Tag, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { type ActivityEntry, type ResourceDef } from '@adplane/shared';
import { api } from '../api/client.js';
import { errorText } from '../errors/messages.js';
import { useClock } from '../format/clock.js';
import { diffFields, showValue } from '../pages/log/activityDiff.js';

const PAGE = 20;
const ACTION_LABELS: Record<string, string> = {
  create: 'Created',
  duplicate: 'Created as a copy',
  update: 'Changed',
  archive: 'Archived',
  restore: 'Restored',
  delete: 'Deleted',
};

/** Who made a change: the user, the admin acting as them, or the system (no user: an automatic job). */
export function historyWho(e: Pick<ActivityEntry, 'userId' | 'userName' | 'adminId' | 'adminName'>): string {
  const user = e.userId === null ? 'the system' : (e.userName ?? `user #${e.userId}`);
  return e.adminId === null ? user : `${user} (by admin ${e.adminName ?? `#${e.adminId}`})`;
}

/** One line per change: the fields an update changed (with before and after), or what the action was. */
function EntryChanges({ entry }: { entry: ActivityEntry }) {
  if (entry.action !== 'update') return null;
  const changes = diffFields(entry.before, entry.after);
  if (!changes.length) return <Typography.Text type="secondary">nothing changed</Typography.Text>;
  return (
    <ul className="history-changes" style={{ margin: '4px 0 0', paddingInlineStart: 18 }}>
      {changes.map((c) => (
        <li key={c.field} data-testid={`history-field-${entry.id}-${c.field}`}>
          <Typography.Text strong>{c.field}</Typography.Text>:{' '}
          <code style={{ wordBreak: 'break-all' }}>{showValue(c.before) || '(none)'}</code> →{' '}
          <code style={{ wordBreak: 'break-all' }}>{showValue(c.after) || '(none)'}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * The "History" section of a drawer (GET {api}/:id/history): the row's own changes, newest first, who
 * made them and what an update changed. Closed at first; it loads when opened, 20 at a time. Every
 * edition has it; the whole User Activity log is a page of its own in CTVMediaV2V.
 */
export function EntityHistory({ def, id }: { def: ResourceDef; id: number }) {
  const clock = useClock();
  const [entries, setEntries] = useState<ActivityEntry[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    async (beforeId?: number) => {
      setError(null);
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (beforeId) query.set('beforeId', String(beforeId));
      try {
        const page = await api.get<ActivityEntry[]>(`${def.api}/${id}/history?${query}`, { silent: true });
        setEntries((old) => (beforeId && old ? [...old, ...page] : page));
        setMore(page.length === PAGE);
      } catch (e) {
        setError(errorText(e));
      }
    },
    [def.api, id],
  );

  const body = error ? (
    <Typography.Text type="danger">Could not load the history: {error}</Typography.Text>
  ) : entries === null ? (
    <Skeleton active paragraph={{ rows: 2 }} title={false} />
  ) : entries.length === 0 ? (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No changes recorded" data-testid="history-none" />
  ) : (
    <>
      <ol className="entity-history" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {entries.map((e) => (
          <li key={e.id} data-testid={`history-entry-${e.id}`} style={{ marginBottom: 10 }}>
            <Tag>{ACTION_LABELS[e.action] ?? e.action}</Tag>
            <Typography.Text>{clock(e.at)}</Typography.Text>{' '}
            <Typography.Text type="secondary">by {historyWho(e)}</Typography.Text>
            <EntryChanges entry={e} />
          </li>
        ))}
      </ol>
      {more && (
        <Button size="small" onClick={() => void load(entries[entries.length - 1].id)} data-testid="history-more">
          Older changes
        </Button>
      )}
    </>
  );

  return (
    <section aria-label="History" data-testid="entity-history" style={{ marginTop: 20 }}>
      <Collapse
        size="small"
        destroyOnHidden
        onChange={(open) => {
          if (open.length && entries === null) void load();
        }}
        items={[{ key: 'history', label: `History of this ${def.label.toLowerCase()}`, children: body }]}
      />
    </section>
  );
}

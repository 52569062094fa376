import { Empty, Space, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { LIST_FEATURES, type ListItem, type ListName, useList } from '../../api/lists.js';
import { useAuth } from '../../auth/authContext.js';
import { isEntitled } from '../../auth/guards.js';
import { SectionTitle } from '../../resources/formParts.js';

/**
 * What is assigned to a subpublisher (its channels) or an advertiser (its tags, campaigns and
 * creatives), read from the shared lists, whose items carry the account's id.
 */
export interface AssignedGroup {
  list: ListName;
  /** The item field holding the account id. */
  field: 'subpublisherId' | 'advertiserId';
  label: string;
  route: string;
}

export const SUBPUBLISHER_GROUPS: AssignedGroup[] = [
  { list: 'channels', field: 'subpublisherId', label: 'Channels', route: '/channels' },
];
export const ADVERTISER_GROUPS: AssignedGroup[] = [
  { list: 'tags', field: 'advertiserId', label: 'Tags', route: '/tags' },
  { list: 'campaigns', field: 'advertiserId', label: 'Campaigns', route: '/campaigns' },
  { list: 'creatives', field: 'advertiserId', label: 'Creatives', route: '/creatives' },
];

/**
 * The groups the signed-in user may see: campaigns and creatives only where the tenant has the DSP
 * view (the server refuses their lists otherwise; packages/shared entitlements.ts).
 */
export function useEntitledGroups(groups: readonly AssignedGroup[]): AssignedGroup[] {
  const { user } = useAuth();
  return groups.filter((g) => {
    const feature = LIST_FEATURES[g.list];
    return !feature || isEntitled(user, feature);
  });
}

/** Live rows of a list assigned to an account. */
export function assignedTo(items: readonly ListItem[], field: AssignedGroup['field'], accountId: number): ListItem[] {
  return items.filter((i) => !i.archived && Number(i[field]) === accountId);
}

/** How many live rows of a list each account has, for a list column. */
export function countByAccount(items: readonly ListItem[], field: AssignedGroup['field']): Map<number, number> {
  const counts = new Map<number, number>();
  for (const i of items) {
    const id = Number(i[field]);
    if (!i.archived && id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

function Group({ group, accountId }: { group: AssignedGroup; accountId: number }) {
  const { items, loading } = useList(group.list);
  const rows = assignedTo(items, group.field, accountId);
  return (
    <div style={{ marginBottom: 12 }} data-testid={`assigned-${group.list}`}>
      <Typography.Text strong>
        {group.label} ({loading ? '…' : rows.length})
      </Typography.Text>
      <div style={{ marginTop: 6 }}>
        {rows.length === 0 && !loading ? (
          <Typography.Text type="secondary">None assigned</Typography.Text>
        ) : (
          <Space size={[4, 6]} wrap>
            {rows.map((r) => (
              <Tag key={String(r.id)}>
                <Link to={`${group.route}?search=${encodeURIComponent(String(r.id))}`}>{r.name}</Link>
              </Tag>
            ))}
          </Space>
        )}
      </div>
    </div>
  );
}

/** The drawer section of an existing account: what it sees when it signs in. */
export function AssignedRows({ accountId, groups }: { accountId: number | undefined; groups: AssignedGroup[] }) {
  const shown = useEntitledGroups(groups);
  return (
    <>
      <SectionTitle>Assigned to this account</SectionTitle>
      {accountId === undefined ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description="Save the account first, then assign rows to it from their own forms"
        />
      ) : (
        shown.map((g) => <Group key={g.list} group={g} accountId={accountId} />)
      )}
    </>
  );
}

/** A list column counting each account's assigned rows of one list. */
export function useAssignedCountColumn(group: AssignedGroup) {
  const { items } = useList(group.list);
  const counts = countByAccount(items, group.field);
  return {
    title: group.label,
    key: `assigned-${group.list}`,
    width: 80,
    align: 'right' as const,
    render: (_: unknown, row: { id: number }) => counts.get(row.id) ?? 0,
  };
}

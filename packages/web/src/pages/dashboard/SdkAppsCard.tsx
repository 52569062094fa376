import { Card, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { type ListPage, RESOURCES } from '@adplane/shared';
import { api } from '../../api/client.js';
import { notifyLoadError } from '../../errors/notify.js';
import { CopyValue } from '../../resources/cells.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { SDK_PLATFORM_NAMES } from '../sdk/platforms.js';

/** An SDK developer has no reports: its dashboard shows its apps and their keys, ready to paste. */
export function SdkAppsCard() {
  const [page, setPage] = useState<ListPage<ResourceRow> | null>(null);
  useEffect(() => {
    api
      .get<ListPage<ResourceRow>>(`${RESOURCES.sdkapps.api}?page=1&pageSize=10&sort=name&order=asc&status=active`)
      .then(setPage)
      .catch(notifyLoadError);
  }, []);
  return (
    <Card
      size="small"
      title="Your apps"
      className="dashboard-stats"
      data-testid="dashboard-sdk-apps"
      extra={
        <Link to={RESOURCES.sdkapps.route}>{page && page.total > 10 ? `All ${page.total} apps` : 'Manage apps'}</Link>
      }
    >
      <Table<ResourceRow>
        size="small"
        rowKey="id"
        loading={!page}
        pagination={false}
        dataSource={page?.items ?? []}
        locale={{
          emptyText: (
            <Typography.Text type="secondary">No apps yet: add one on SDK Admin to get its app key</Typography.Text>
          ),
        }}
        columns={[
          { key: 'name', title: 'App', dataIndex: 'name' },
          { key: 'bundle', title: 'Bundle', dataIndex: 'bundle' },
          {
            key: 'platform',
            title: 'Platform',
            dataIndex: 'platform',
            render: (p: keyof typeof SDK_PLATFORM_NAMES) => SDK_PLATFORM_NAMES[p] ?? p,
          },
          {
            key: 'uid',
            title: 'App key',
            dataIndex: 'uid',
            width: 260,
            ellipsis: { showTitle: false },
            render: (uid: string | null) => <CopyValue value={uid ?? ''} />,
          },
        ]}
      />
    </Card>
  );
}

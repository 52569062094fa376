import { Tag, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { accountDefaults, accountToBody, accountToForm } from '../accounts/AccountFields.js';
import { SUBPUBLISHER_GROUPS, useAssignedCountColumn } from '../accounts/assigned.js';
import { accountColumns } from '../accounts/columns.js';
import { SubpublisherForm } from './SubpublisherForm.js';

export function subpublisherDefaults(): Record<string, unknown> {
  return { ...accountDefaults(), sellersJson: { type: 'INTERMEDIARY', name: '', id: '', status: 0, confidential: 0 } };
}

const SELLER_TYPE_COLORS: Record<string, string> = { PUBLISHER: 'blue', INTERMEDIARY: 'purple', BOTH: 'cyan' };

/** Subpublishers: the publishers whose inventory the tenant sells through its channels; they sign in to see their numbers. */
export default function SubpublishersPage() {
  const channels = useAssignedCountColumn(SUBPUBLISHER_GROUPS[0]);
  const columns: ColumnsType<ResourceRow> = [
    ...accountColumns({ domain: true }),
    channels,
    {
      title: 'sellers.json',
      dataIndex: 'sellersJson',
      key: 'sellersJson',
      width: 125,
      render: (s: { type?: string; status?: number } | null) =>
        s?.type ? (
          <span>
            <Tag color={SELLER_TYPE_COLORS[s.type]} variant="filled">
              {s.type}
            </Tag>
            {s.status !== 1 && <Typography.Text type="secondary">off</Typography.Text>}
          </span>
        ) : null,
    },
  ];
  return (
    <ResourceListPage
      def={RESOURCES.subs}
      columns={columns}
      FormBody={SubpublisherForm}
      defaults={subpublisherDefaults}
      toForm={accountToForm}
      toBody={accountToBody}
      canDuplicate={false}
      // With the domain the list is wider than a 1280 px window: it waits in the column chooser, with the e-mail and company.
      defaultHidden={['updatedAt', 'email', 'companyName', 'domain']}
    />
  );
}

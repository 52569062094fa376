import { LoginOutlined } from '@ant-design/icons';
import { Alert, Button, Tag, Tooltip, Typography } from 'antd';
import { type MouseEvent } from 'react';
import { RESOURCES, formatPercent } from '@adplane/shared';
import { clearLists } from '../../api/lists.js';
import { browser } from '../../browser.js';
import { EmptyValue, orEmpty } from '../../components/EmptyValue.js';
import { usd } from '../../resources/fields.js';
import { EllipsisText, shortTitle } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { type ListColumns, ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { accountDefaults, accountToBody, accountToForm } from '../accounts/AccountFields.js';
import { ContractNotice, ContractTag } from './contract.js';
import { DemandForm, SUPER_ONLY, useIsLimitedAdmin } from './DemandForm.js';

export function demandDefaults(): Record<string, unknown> {
  return {
    ...accountDefaults(),
    timezone: 0,
    priceReq: 0,
    priceImp: 0,
    pricePostbid: 0,
    priceDsp: 0,
    showDsp: false,
    showPostbidPix: false,
    showPostbidWh: false,
    showCheckIVT: false,
    showSystemCost: false,
    showDemandToSubs: false,
    showSupplyToAdvs: false,
    requireTwoFactor: false,
  };
}

export function loginAsHref(id: number): string {
  return `/api/switch?type=demand&id=${id}`;
}

/** Act as the account: the server switches the session and sends the browser to its dashboard. */
function LoginAsButton({ row }: { row: ResourceRow }) {
  const usable = row.status === 1 && !row.archived;
  const href = loginAsHref(row.id);
  const go = (event: MouseEvent<HTMLElement>) => {
    event.preventDefault();
    // The admin's cached lists must not show up in the account's console.
    clearLists();
    browser.assign(href);
  };
  return (
    <Tooltip title={usable ? `Log in as ${row.name}` : 'Only an active account can be logged in as'}>
      <Button
        type="text"
        size="small"
        icon={<LoginOutlined />}
        href={usable ? href : undefined}
        disabled={!usable}
        onClick={go}
        aria-label="log in as"
        data-testid={`login-as-${row.id}`}
      />
    </Tooltip>
  );
}

const money = { align: 'right' as const, width: COLUMN_WIDTHS.money };

/** Demand accounts (tenants), for admins: who they are, what the platform charges them, what they may use. */
export default function DemandsPage() {
  const limited = useIsLimitedAdmin();
  // The prices' titles are short for their narrow columns: the full name is on hover and in the chooser.
  const columns: ListColumns = [
    {
      title: 'UID',
      dataIndex: 'uid',
      key: 'uid',
      width: 72,
      render: (v: string | null) => orEmpty(v, (uid) => <Typography.Text code>{uid}</Typography.Text>),
    },
    {
      title: 'Username',
      dataIndex: 'username',
      key: 'username',
      sorter: true,
      width: COLUMN_WIDTHS.account,
      ellipsis: { showTitle: false },
      render: (v: string) => <EllipsisText text={v} />,
    },
    {
      title: 'Company',
      dataIndex: 'companyName',
      key: 'companyName',
      width: COLUMN_WIDTHS.account,
      ellipsis: { showTitle: false },
      render: (v: string) => orEmpty(v, (text) => <EllipsisText text={text} />),
    },
    {
      ...shortTitle('Contract', 'Contract end (the account profile’s Contract expires)'),
      dataIndex: 'contactExpired',
      key: 'contactExpired',
      width: 140,
      render: (_: unknown, row: ResourceRow) => <ContractTag row={row} />,
    },
    { ...shortTitle('Req. CPM', 'Request CPM'), dataIndex: 'priceReq', key: 'priceReq', render: usd, ...money },
    { ...shortTitle('Imp. CPM', 'Impression CPM'), dataIndex: 'priceImp', key: 'priceImp', render: usd, ...money },
    {
      ...shortTitle('Post-bid', 'Post-bid CPM'),
      dataIndex: 'pricePostbid',
      key: 'pricePostbid',
      render: usd,
      ...money,
    },
    { title: 'DSP share', dataIndex: 'priceDsp', key: 'priceDsp', render: (v: number) => formatPercent(v), ...money },
    {
      title: 'DSP',
      dataIndex: 'showDsp',
      key: 'showDsp',
      width: 56,
      align: 'center',
      render: (v: boolean) =>
        v ? (
          <Tag color="purple" variant="filled">
            DSP
          </Tag>
        ) : (
          <EmptyValue />
        ),
    },
  ];

  return (
    <ResourceListPage
      def={RESOURCES.demands}
      columns={columns}
      FormBody={DemandForm}
      defaults={demandDefaults}
      toForm={accountToForm}
      toBody={accountToBody}
      canDuplicate={false}
      // the contract's end waits in the column chooser: the list fits 1280 px without it, and the
      // accounts whose contract needs renewing are named above the list
      defaultHidden={['updatedAt', 'contactExpired']}
      locked={
        limited ? { create: SUPER_ONLY.create, archive: SUPER_ONLY.archive, delete: SUPER_ONLY.delete } : undefined
      }
      rowActions={(row) => <LoginAsButton row={row} />}
      drawerWidth={760}
      intro={
        <>
          {limited && (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 12 }}
              title="You can edit accounts and log in as them; creating, archiving and deleting accounts and changing prices is for the super admin."
              data-testid="demands-limited"
            />
          )}
          <ContractNotice />
        </>
      }
    />
  );
}

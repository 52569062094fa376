import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { RESOURCES, partnerById } from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { usd } from '../../resources/fields.js';
import { EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { FillFunnelButton } from '../report/FillFunnel.js';
import { TagTestButton } from '../tagTest/TagTestDrawer.js';
import { priceText } from '../../resources/unitFields.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { partnerFormId, partnerParamsToBody, partnerParamsToForm } from './partnerParams.js';
import { TagForm } from './TagForm.js';

export function tagDefaults(): Record<string, unknown> {
  return {
    name: '',
    status: 1,
    integration: 'VAST',
    vastUrl: '',
    endpoint: '',
    partner: undefined,
    partnerParams: {},
    price: { type: 'cpm', cpm: 0 },
    floorCpm: 0,
    timeoutMs: 1000,
    qpsLimit: 'unlimited',
    dailyRequestCap: 'unlimited',
    dailyImpCap: 'unlimited',
    priority: 5,
    targetingId: null,
    advertiserId: null,
    userSyncUrl: '',
  };
}

/** A stored tag as the form edits it: the partner under the id the select offers, its parameters typed for the inputs. */
export function tagToForm(row: ResourceRow): Record<string, unknown> {
  const partner = partnerById(String(row.partner ?? ''));
  return {
    ...row,
    partner: partnerFormId(row.partner) || undefined,
    partnerParams: partner ? partnerParamsToForm(partner.params, row.partnerParams) : {},
  };
}

/** The form's values as the API takes them: only the fields of the chosen integration, partner parameters typed. */
export function tagToBody(values: Record<string, unknown>): Record<string, unknown> {
  const { vastUrl, endpoint, partner, partnerParams, userSyncUrl, ...rest } = values;
  switch (values.integration) {
    case 'VAST':
      return { ...rest, vastUrl };
    case 'RTB':
      return { ...rest, endpoint, userSyncUrl: userSyncUrl ?? '' };
    default: {
      const def = partnerById(String(partner ?? ''));
      return { ...rest, partner, partnerParams: def ? partnerParamsToBody(def.params, partnerParams) : {} };
    }
  }
}

/** Demand tags: the VAST, OpenRTB and Prebid demand sources the tenant's channels call. */
export default function TagsPage() {
  const { items: advertisers } = useList('advertisers');
  const advNames = useMemo(() => new Map(advertisers.map((a) => [Number(a.id), a.name])), [advertisers]);

  const columns: ColumnsType<ResourceRow> = [
    {
      title: 'Integration',
      dataIndex: 'integration',
      key: 'integration',
      sorter: true,
      width: COLUMN_WIDTHS.type,
      ellipsis: { showTitle: false },
      render: (v: string, row) => {
        if (v !== 'PreBid') return v;
        const partner = partnerById(String(row.partner ?? ''))?.name ?? String(row.partner ?? '');
        return (
          <EllipsisText text={`PreBid · ${partner}`}>
            PreBid <Typography.Text type="secondary">· {partner}</Typography.Text>
          </EllipsisText>
        );
      },
    },
    {
      title: 'Price',
      dataIndex: 'price',
      key: 'price',
      align: 'right',
      width: COLUMN_WIDTHS.price,
      ellipsis: { showTitle: false },
      render: (p: unknown) => <EllipsisText text={priceText(p)} />,
    },
    { title: 'Floor', dataIndex: 'floorCpm', key: 'floorCpm', align: 'right', width: COLUMN_WIDTHS.money, render: usd },
    {
      title: 'Timeout',
      dataIndex: 'timeoutMs',
      key: 'timeoutMs',
      align: 'right',
      width: COLUMN_WIDTHS.count,
      render: (v: number) => `${v.toLocaleString('en-US')} ms`,
    },
    {
      title: 'Priority',
      dataIndex: 'priority',
      key: 'priority',
      sorter: true,
      align: 'right',
      width: COLUMN_WIDTHS.count,
    },
    {
      title: 'Advertiser',
      dataIndex: 'advertiserId',
      key: 'advertiserId',
      width: COLUMN_WIDTHS.account,
      ellipsis: { showTitle: false },
      render: (id: number | null) => orEmpty(id, (v) => <EllipsisText text={advNames.get(v) ?? `#${v}`} />),
    },
  ];

  return (
    <ResourceListPage
      def={RESOURCES.tags}
      columns={columns}
      FormBody={TagForm}
      defaults={tagDefaults}
      toForm={tagToForm}
      toBody={tagToBody}
      drawerWidth={760}
      // The advertiser (whose login sees the tag) waits in the column chooser, so the names keep room at 1280 px.
      defaultHidden={['updatedAt', 'floorCpm', 'timeoutMs', 'priority', 'advertiserId']}
      rowActionCount={2}
      rowActions={(row) => (
        <>
          <TagTestButton subject={{ kind: 'tag', id: Number(row.id), name: String(row.name) }} />
          <FillFunnelButton subject={{ dimension: 'tag', id: Number(row.id), name: String(row.name) }} />
        </>
      )}
    />
  );
}

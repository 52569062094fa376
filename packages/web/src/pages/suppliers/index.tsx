import { Space, Tag, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { AD_FORMAT_OPTIONS, RESOURCES, formatPercent } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { TagPreviewButton } from '../../components/TagPreviewButton.js';
import { supplierTagPreview } from '../../components/tagVariants.js';
import { CopyValue } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { limitText } from '../../resources/unitFields.js';
import { SupplierForm, supplierDefaults } from './SupplierForm.js';
import { supplierEndpoint } from './supplierEndpoint.js';

const FORMAT_NAMES = new Map<string, string>(AD_FORMAT_OPTIONS.map((o) => [o.id, o.name]));

/** Suppliers: partners that send OpenRTB bid requests to the tenant's bidder (DSP mode). */
export default function SuppliersPage() {
  const user = useUser();
  const host = user.config.host;

  const columns = useMemo<ColumnsType<ResourceRow>>(
    () => [
      {
        title: 'UID',
        dataIndex: 'uid',
        key: 'uid',
        width: COLUMN_WIDTHS.copyValue,
        sorter: true,
        ellipsis: { showTitle: false },
        render: (uid: string | null) => <CopyValue value={uid ?? ''} />,
      },
      {
        title: 'Bid endpoint',
        key: 'endpoint',
        width: COLUMN_WIDTHS.copyValue,
        ellipsis: { showTitle: false },
        render: (_: unknown, row) => {
          if (!row.uid) return null;
          // The host is the same on every row: show the path, copy the whole URL.
          const url = supplierEndpoint(host, row.uid);
          return <CopyValue value={url} shown={url.replace(/^https?:\/\/[^/]+/, '')} testId={`endpoint-${row.id}`} />;
        },
      },
      {
        title: 'QPS limit',
        dataIndex: 'qpsLimit',
        key: 'qpsLimit',
        width: COLUMN_WIDTHS.count,
        align: 'right',
        sorter: true,
        render: (v: number, row) => <span data-testid={`qps-${row.id}`}>{limitText(v)}</span>,
      },
      {
        title: 'Margin',
        dataIndex: 'marginPercent',
        key: 'marginPercent',
        width: COLUMN_WIDTHS.percent,
        align: 'right',
        sorter: true,
        render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, formatPercent),
      },
      {
        title: 'Formats',
        dataIndex: 'formats',
        key: 'formats',
        width: 110,
        render: (formats: string[] | undefined) => (
          <Space size={2} wrap>
            {(formats ?? []).map((f) => (
              <Tag key={f}>{FORMAT_NAMES.get(f) ?? f}</Tag>
            ))}
          </Space>
        ),
      },
    ],
    [host],
  );

  return (
    <ResourceListPage
      def={RESOURCES.sups}
      columns={columns}
      FormBody={SupplierForm}
      defaults={supplierDefaults}
      canWrite={user.type === 'demand'}
      drawerWidth={760}
      // The endpoint is a row action too (the code icon: see it, copy it); its column waits in the chooser.
      defaultHidden={['updatedAt', 'uid', 'endpoint']}
      intro={
        <Typography.Paragraph type="secondary">
          Partners that send OpenRTB bid requests to your bidder. Hand each one its bid endpoint; the QPS limit and
          margin apply per supplier.
        </Typography.Paragraph>
      }
      rowActions={(row) =>
        row.uid ? (
          <TagPreviewButton
            label="Bid endpoint"
            heading={`Bid endpoint: ${row.name}`}
            buttonTestId={`copy-endpoint-${row.id}`}
            model={supplierTagPreview(String(row.uid), row.formats, host)}
            testId={`row-endpoint-${row.id}`}
            copiedMessage="Bid endpoint copied"
          />
        ) : null
      }
    />
  );
}

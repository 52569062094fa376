import { Tag, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { formatPercent, RESOURCES } from '@adplane/shared';
import { orEmpty } from '../../components/EmptyValue.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { IVT_STAGE_LABELS, IvtForm } from './IvtForm.js';

const def = RESOURCES.ivts;

/** The list's own columns; the sample reads as every percent does (`10.00%`). */
export const ivtColumns: ColumnsType<ResourceRow> = [
  { title: 'Vendor', dataIndex: 'vendor', key: 'vendor', sorter: true, width: 220 },
  {
    title: 'Stage',
    dataIndex: 'stage',
    key: 'stage',
    width: 120,
    sorter: true,
    render: (stage: string) => (
      <Tag color={stage === 'prebid' ? 'blue' : 'purple'}>{IVT_STAGE_LABELS[stage] ?? stage}</Tag>
    ),
  },
  {
    title: 'Sample',
    dataIndex: 'samplePercent',
    key: 'samplePercent',
    width: 100,
    align: 'right',
    render: (v: unknown) => orEmpty(typeof v === 'number' ? v : null, formatPercent),
  },
];

/** /ivts, '3rd Party Pixels': invalid-traffic vendors' pixels that channels fire before the auction or with the ad. */
export default function IvtsPage() {
  return (
    <ResourceListPage
      def={def}
      columns={ivtColumns}
      FormBody={IvtForm}
      defaults={() => ({ name: '', status: 1, vendor: '', urlTemplate: '', stage: 'postbid', samplePercent: 100 })}
      intro={
        <Typography.Paragraph type="secondary">
          Invalid-traffic (IVT) vendors' pixels. Pre-bid pixels are checked before the auction; post-bid pixels fire
          with the ad. Channels pick which ones they use.
        </Typography.Paragraph>
      }
    />
  );
}

import { Tag } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { AD_FORMAT_OPTIONS, type APPROVAL, RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { CopyValue } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { useNames } from '../dsp/names.js';
import { AdvertiserName } from '../dsp/AdvertiserName.js';
import { APPROVAL_LABELS, CreativeForm } from './CreativeForm.js';
import { creativeDefaults, creativeSizeLabel, creativeToBody } from './creativeValues.js';

const FORMAT_NAMES = new Map<string, string>(AD_FORMAT_OPTIONS.map((o) => [o.id, o.name]));

export function ApprovalTag({ approval }: { approval: unknown }) {
  const a = APPROVAL_LABELS[approval as (typeof APPROVAL)[number]];
  return a ? <Tag color={a.color}>{a.label}</Tag> : null;
}

/** Creatives: the video and display ads campaigns serve, with their approval state (DSP mode). */
export default function CreativesPage() {
  const user = useUser();
  const advertisers = useNames('advertisers');

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
        title: 'Format',
        dataIndex: 'format',
        key: 'format',
        // `Display (HTML)` whole, with room before the next column
        width: 120,
        sorter: true,
        render: (f: string, row) => (
          <span>
            {FORMAT_NAMES.get(f) ?? f}
            {f === 'video' && row.videoSource === 'vast' ? ' (VAST)' : ''}
            {f === 'display' && row.displayType === 'html' ? ' (HTML)' : ''}
          </span>
        ),
      },
      {
        title: 'Approval',
        dataIndex: 'approval',
        key: 'approval',
        width: 96,
        sorter: true,
        render: (a: unknown) => <ApprovalTag approval={a} />,
      },
      {
        title: 'Advertiser',
        dataIndex: 'advertiserId',
        key: 'advertiserId',
        width: COLUMN_WIDTHS.account,
        ellipsis: { showTitle: false },
        render: (id: unknown) => <AdvertiserName names={advertisers} id={id} />,
      },
      {
        title: 'Size / duration',
        key: 'size',
        width: 120,
        align: 'right',
        render: (_: unknown, row) => creativeSizeLabel(row),
      },
    ],
    [advertisers],
  );

  return (
    <ResourceListPage
      def={RESOURCES.creatives}
      columns={columns}
      FormBody={CreativeForm}
      defaults={creativeDefaults}
      toBody={creativeToBody}
      canWrite={user.type === 'demand'}
      drawerWidth={960}
      defaultHidden={['updatedAt', 'uid', 'm_bids']}
    />
  );
}

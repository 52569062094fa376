import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { CopyValue, EllipsisText } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { SDK_PLATFORM_NAMES } from './platforms.js';
import { SdkAppForm } from './SdkAppForm.js';

export function sdkAppDefaults(): Record<string, unknown> {
  return { name: '', status: 1, bundle: '', platform: undefined, storeUrl: '' };
}

/** SDK Admin: the apps of the in-app SDK and their app keys. */
export default function SdkPage() {
  const columns: ColumnsType<ResourceRow> = [
    {
      title: 'Bundle',
      dataIndex: 'bundle',
      key: 'bundle',
      width: COLUMN_WIDTHS.bundle,
      ellipsis: { showTitle: false },
      render: (bundle: string) => <EllipsisText text={bundle} />,
    },
    {
      title: 'Platform',
      dataIndex: 'platform',
      key: 'platform',
      width: COLUMN_WIDTHS.type,
      ellipsis: { showTitle: false },
      render: (p: keyof typeof SDK_PLATFORM_NAMES) => <EllipsisText text={SDK_PLATFORM_NAMES[p] ?? p} />,
    },
    // What the page is for: the key whole, with its copy icon, as on the dashboard.
    {
      title: 'App key',
      dataIndex: 'uid',
      key: 'uid',
      width: COLUMN_WIDTHS.appKey,
      ellipsis: { showTitle: false },
      render: (uid: string | null, row) => <CopyValue value={uid ?? ''} testId={`app-key-${row.id}`} />,
    },
  ];
  return (
    <ResourceListPage
      def={RESOURCES.sdkapps}
      columns={columns}
      FormBody={SdkAppForm}
      defaults={sdkAppDefaults}
      intro={
        <Typography.Paragraph type="secondary">
          Register each app that embeds the SDK. The SDK sends the app key on every ad request (
          <Typography.Text code>app_key=&lt;key&gt;</Typography.Text> on the VAST tag): the ad server then counts the
          request as this app&apos;s, under its bundle. Pausing or archiving the app revokes its key: its requests get
          no ad.
        </Typography.Paragraph>
      }
    />
  );
}

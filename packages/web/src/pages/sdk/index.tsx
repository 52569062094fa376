import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Space, Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { copyText } from '../../resources/clipboard.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { SDK_PLATFORM_NAMES } from './platforms.js';
import { SdkAppForm } from './SdkAppForm.js';

export function sdkAppDefaults(): Record<string, unknown> {
  return { name: '', status: 1, bundle: '', platform: undefined, storeUrl: '' };
}

function AppKey({ uid, id }: { uid: string | null | undefined; id: number }) {
  const { message } = App.useApp();
  if (!uid) return null;
  return (
    <Space size={4}>
      <Typography.Text code>{uid}</Typography.Text>
      <Tooltip title="Copy the app key">
        <Button type="text" size="small" icon={<CopyOutlined />} aria-label="copy app key" data-testid={`copy-key-${id}`} onClick={() => void copyText(uid, message)} />
      </Tooltip>
    </Space>
  );
}

/** SDK Admin: the apps of the in-app SDK and their app keys. */
export default function SdkPage() {
  const columns: ColumnsType<ResourceRow> = [
    { title: 'Bundle', dataIndex: 'bundle', key: 'bundle' },
    { title: 'Platform', dataIndex: 'platform', key: 'platform', width: 150, render: (p: keyof typeof SDK_PLATFORM_NAMES) => SDK_PLATFORM_NAMES[p] ?? p },
    { title: 'App key', dataIndex: 'uid', key: 'uid', width: 230, render: (uid: string | null, row) => <AppKey uid={uid} id={row.id} /> },
  ];
  return (
    <ResourceListPage
      def={RESOURCES.sdkapps}
      columns={columns}
      FormBody={SdkAppForm}
      defaults={sdkAppDefaults}
      intro={<Typography.Paragraph type="secondary">Register each app that embeds the SDK; the app key identifies it in every ad request.</Typography.Paragraph>}
    />
  );
}

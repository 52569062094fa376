import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Col, ConfigProvider, Form, Input, Row, Select, Space, Typography } from 'antd';
import { copyText } from '../../resources/clipboard.js';
import { useHelpLabel } from '../../resources/fields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { SDK_PLATFORM_OPTIONS } from './platforms.js';
import { NameStatusRow, trimmed } from '../../resources/formParts.js';

/** An app of the in-app SDK: its store identity, and (once saved) the app key the developer pastes into the SDK. */
export function SdkAppForm({ row }: ResourceFormProps) {
  const label = useHelpLabel('sdkapps');
  const { message } = App.useApp();
  return (
    <>
      <NameStatusRow label="App name" message="Name the app" testId="sdk-name" />
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item
            name="bundle"
            label={label('bundle', 'Bundle or store id')}
            rules={[
              { required: true, whitespace: true, message: 'Enter the bundle id' },
              {
                pattern: /^([A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+|\d{5,12})$/,
                message: 'A bundle id (com.example.app) or a numeric store id',
              },
            ]}
          >
            <Input placeholder="com.example.app" data-testid="sdk-bundle" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            name="platform"
            label={label('platform', 'Platform')}
            rules={[{ required: true, message: 'Pick the platform' }]}
          >
            <Select options={SDK_PLATFORM_OPTIONS} placeholder="Pick a platform" />
          </Form.Item>
        </Col>
        <Col span={24}>
          <Form.Item
            name="storeUrl"
            normalize={trimmed}
            label={label('storeUrl', 'Store URL')}
            rules={[{ pattern: /^$|^https?:\/\/\S+$/i, message: 'Must be an http(s) URL' }]}
          >
            <Input placeholder="https://play.google.com/store/apps/details?id=com.example.app" />
          </Form.Item>
        </Col>
      </Row>
      {row?.uid && (
        <ConfigProvider componentDisabled={false}>
          <Typography.Text type="secondary">App key (paste it into the SDK's init call)</Typography.Text>
          <Space.Compact style={{ width: '100%', margin: '4px 0 16px' }}>
            <Input readOnly value={row.uid} style={{ fontFamily: 'monospace' }} data-testid="sdk-app-key" />
            <Button icon={<CopyOutlined />} onClick={() => void copyText(String(row.uid), message)}>
              Copy
            </Button>
          </Space.Compact>
        </ConfigProvider>
      )}
    </>
  );
}

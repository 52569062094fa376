import { CopyOutlined } from '@ant-design/icons';
import { Alert, App, Button, Checkbox, Col, ConfigProvider, Form, Row, Space, Typography } from 'antd';
import { AD_FORMAT_OPTIONS } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { PercentInput, RefSelect } from '../../resources/fields.js';
import { LimitInput } from '../../resources/unitFields.js';
import { copyToClipboard } from '../../resources/clipboard.js';
import { useHelpLabel } from '../../resources/fields.js';
import { NameField, StatusField } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import { supplierEndpoint } from './supplierEndpoint.js';
import '../dsp/dsp.css';

export const FORMAT_CHECKBOXES = AD_FORMAT_OPTIONS.map((o) => ({ value: o.id, label: o.name }));

export function supplierDefaults(): Record<string, unknown> {
  return { status: 1, qpsLimit: 'unlimited', marginPercent: 20, formats: ['video'], targetingId: null };
}

/** The endpoint to hand the supplier, with a copy button that works in a read-only drawer too. */
function EndpointBox({ endpoint }: { endpoint: string }) {
  const { message } = App.useApp();
  const copy = async () => {
    if (await copyToClipboard(endpoint)) message.success('Bid endpoint copied');
    else message.error('The browser refused to copy: select the endpoint and copy it by hand');
  };
  return (
    <Alert
      type="info"
      style={{ marginBottom: 16 }}
      title="Bid endpoint to hand this supplier"
      description={
        <Space orientation="vertical" size={4} style={{ width: '100%' }}>
          <Space size={8} wrap>
            <Typography.Text className="dsp-mono" data-testid="supplier-endpoint">
              {endpoint}
            </Typography.Text>
            <ConfigProvider componentDisabled={false}>
              <Button size="small" icon={<CopyOutlined />} onClick={() => void copy()} data-testid="supplier-endpoint-copy">
                Copy
              </Button>
            </ConfigProvider>
          </Space>
          <Typography.Text type="secondary">They POST OpenRTB 2.6 bid requests here; the QPS limit and margin below apply to them.</Typography.Text>
        </Space>
      }
    />
  );
}

export function SupplierForm({ row }: ResourceFormProps) {
  const user = useUser();
  const label = useHelpLabel('sups');
  return (
    <div className="dsp-form">
      {row?.uid ? (
        <EndpointBox endpoint={supplierEndpoint(user.config.host, row.uid)} />
      ) : (
        <Alert type="info" showIcon style={{ marginBottom: 16 }} title="The bid endpoint to hand this supplier appears here once it is created." />
      )}
      <Row gutter={16}>
        <Col span={16}>
          <NameField placeholder="e.g. Tidewater SSP - CTV supply" />
        </Col>
        <Col span={8}>
          <StatusField />
        </Col>
      </Row>
      <Section title="Traffic">
        <Row gutter={16}>
          <Col span={8}>
            <Form.Item
              name="qpsLimit"
              label={label('qpsLimit', 'QPS limit')}
              extra="Bid requests per second we accept; empty = unlimited"
            >
              <LimitInput data-testid="supplier-qps" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="marginPercent"
              label={label('marginPercent', 'Margin')}
              extra="Kept from what we pay on their bids"
              rules={[{ required: true, message: 'Enter a margin (0 for none)' }]}
            >
              <PercentInput />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="formats"
              label={label('formats', 'Formats')}
              rules={[{ type: 'array', min: 1, required: true, message: 'Pick at least one format' }]}
            >
              <Checkbox.Group options={FORMAT_CHECKBOXES} />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item name="targetingId" label={label('targetingId', 'Targeting')} extra="Only bid requests that match it are bid on; none = all traffic">
          <RefSelect kind="targetings" placeholder="None (all traffic)" />
        </Form.Item>
      </Section>
    </div>
  );
}

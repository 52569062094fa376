import { Col, Form, Input, InputNumber, Row } from 'antd';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { PercentInput, RefSelect } from '../../resources/fields.js';
import { LimitInput } from '../../resources/unitFields.js';
import { useHelpLabel } from '../../resources/fields.js';
import { LimitedInput, lengthRule, NameField, StatusField, trimmed } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import '../dsp/dsp.css';

export function adExchangeDefaults(): Record<string, unknown> {
  return {
    status: 1,
    endpoint: '',
    tmaxMs: 300,
    qpsLimit: 'unlimited',
    seat: '',
    marginPercent: 20,
    targetingId: null,
  };
}

/** The host an exchange's endpoint points at (the list shows it instead of the whole URL). */
export function endpointHost(endpoint: unknown): string {
  if (typeof endpoint !== 'string' || !endpoint) return '';
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

export function AdExchangeForm(_: ResourceFormProps) {
  const label = useHelpLabel('adexchanges');
  return (
    <div className="dsp-form">
      <Row gutter={16}>
        <Col span={16}>
          <NameField placeholder="e.g. Crestline Exchange - OpenRTB 2.6" />
        </Col>
        <Col span={8}>
          <StatusField />
        </Col>
      </Row>
      <Section title="OpenRTB 2.6 connection">
        <Form.Item
          name="endpoint"
          normalize={trimmed}
          label={label('endpoint', 'Bid endpoint URL')}
          extra="Where we POST OpenRTB 2.6 bid requests"
          required
        >
          <Input placeholder="https://bid.exchange.example/openrtb2/auction" />
        </Form.Item>
        <Row gutter={16}>
          <Col span={8}>
            <Form.Item name="tmaxMs" label={label('tmaxMs', 'Timeout (tmax)')} extra="50 - 5000 ms" required>
              <InputNumber<number> step={50} precision={0} suffix="ms" style={{ width: '100%' }} />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="qpsLimit"
              label={label('qpsLimit', 'QPS limit')}
              extra="Bid requests per second we send; empty = unlimited"
            >
              <LimitInput data-testid="adexchange-qps" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="seat"
              label={label('seat', 'Seat')}
              extra="Our seat id at the exchange"
              rules={[lengthRule(64)]}
            >
              <LimitedInput max={64} placeholder="e.g. nw-1187" />
            </Form.Item>
          </Col>
        </Row>
      </Section>
      <Section title="Money & targeting">
        <Form.Item
          name="marginPercent"
          label={label('marginPercent', 'Margin')}
          extra="Kept from what this exchange's buyers pay"
          rules={[{ required: true, message: 'Enter a margin (0 for none)' }]}
        >
          <PercentInput />
        </Form.Item>
        <Form.Item
          name="targetingId"
          label={label('targetingId', 'Targeting')}
          extra="Only requests that match it go to this exchange; none = all"
        >
          <RefSelect kind="targetings" placeholder="None (all traffic)" />
        </Form.Item>
      </Section>
    </div>
  );
}

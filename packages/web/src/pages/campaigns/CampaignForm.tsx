import { Col, DatePicker, Form, InputNumber, Radio, Row, Space, Switch } from 'antd';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { MoneyInput, RefSelect } from '../../resources/fields.js';
import { LimitInput } from '../../resources/unitFields.js';
import { DATE_FORMAT } from '../dsp/flightDates.js';
import { useHelpLabel } from '../../resources/fields.js';
import { NameField, StatusField } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import '../dsp/dsp.css';
import { ChannelAssignmentFields } from './ChannelAssignmentFields.js';
import { PacingPanel } from './PacingPanel.js';

export const PACING_OPTIONS = [
  { value: 'even', label: 'Even' },
  { value: 'asap', label: 'ASAP' },
];

/** A budget of $0.00 is allowed (it stops spending) but never serves: the form says so while it is typed. */
const zeroBudgetWarning = (which: string) => ({
  warningOnly: true,
  validator: (_: unknown, v: unknown) =>
    v === 0
      ? Promise.reject(new Error(`A ${which} budget of $0.00 never spends: the campaign will not serve`))
      : Promise.resolve(),
});

export function CampaignForm({ form, row }: ResourceFormProps) {
  const label = useHelpLabel('campaigns');
  const capOn = Form.useWatch(['frequencyCap', 'enabled'], form) === true;
  return (
    <div className="dsp-form">
      {row && (
        <Section title="Pacing today">
          <PacingPanel campaignId={row.id} />
        </Section>
      )}
      <Section title="Basics">
        <Row gutter={16}>
          <Col span={16}>
            <NameField placeholder="e.g. Blue Fin Foods - Wild Salmon CTV flight" />
          </Col>
          <Col span={8}>
            <StatusField />
          </Col>
        </Row>
        <Form.Item
          name="advertiserId"
          label={label('advertiserId', 'Advertiser')}
          extra="The advertiser's own sign-in can see this campaign (read-only)"
        >
          <RefSelect kind="advs" placeholder="None" />
        </Form.Item>
      </Section>

      <Section title="Flight">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="startDate"
              label={label('startDate', 'Start date')}
              rules={[{ required: true, message: 'Pick the first day of the flight' }]}
            >
              <DatePicker format={DATE_FORMAT} allowClear={false} data-testid="campaign-start" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="endDate" label={label('endDate', 'End date')} extra="Leave empty to run until paused">
              <DatePicker format={DATE_FORMAT} placeholder="No end date" data-testid="campaign-end" />
            </Form.Item>
          </Col>
        </Row>
      </Section>

      <Section title="Budget & pacing">
        <Row gutter={16}>
          <Col span={8}>
            <Form.Item
              name="bidCpm"
              label={label('bidCpm', 'Bid CPM')}
              // $0.00 or less is refused by the campaign's schema, in place, as the server refuses it
              rules={[{ required: true, message: 'Enter the bid CPM' }]}
            >
              <MoneyInput data-testid="campaign-bid" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="totalBudget"
              label={label('totalBudget', 'Total budget')}
              extra="Empty = unlimited; $0.00 never spends"
              rules={[zeroBudgetWarning('total')]}
            >
              <LimitInput money data-testid="campaign-total-budget" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="dailyBudget"
              label={label('dailyBudget', 'Daily budget')}
              extra="Empty = unlimited; $0.00 never spends"
              rules={[zeroBudgetWarning('daily')]}
            >
              <LimitInput money data-testid="campaign-daily-budget" />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          name="pacing"
          label={label('pacing', 'Pacing')}
          extra="Even spreads each day's budget over the day; ASAP spends it as fast as bids win"
        >
          <Radio.Group optionType="button" options={PACING_OPTIONS} />
        </Form.Item>
      </Section>

      <Section title="Frequency cap">
        <Space align="start" size={16} wrap>
          {/* Off, the switch says what that means right under it, as every field's hint does. */}
          <Form.Item
            name={['frequencyCap', 'enabled']}
            valuePropName="checked"
            label={label('frequencyCap', 'Cap impressions per user')}
            extra={capOn ? undefined : 'No cap: a user may see this campaign any number of times'}
          >
            <Switch checkedChildren="On" unCheckedChildren="Off" data-testid="campaign-cap" />
          </Form.Item>
          {capOn && (
            <>
              <Form.Item
                name={['frequencyCap', 'count']}
                label="Impressions"
                rules={[
                  { required: true, message: 'Enter how many' },
                  { type: 'number', min: 1, message: 'At least 1' },
                ]}
              >
                <InputNumber<number> precision={0} style={{ width: 120 }} />
              </Form.Item>
              <Form.Item
                name={['frequencyCap', 'periodHours']}
                label="Per (hours)"
                extra="24 = a day, 168 = a week"
                rules={[
                  { required: true, message: 'Enter the period' },
                  { type: 'number', min: 1, max: 720, message: 'Between 1 and 720 hours' },
                ]}
              >
                <InputNumber<number> precision={0} suffix="h" style={{ width: 120 }} />
              </Form.Item>
            </>
          )}
        </Space>
      </Section>

      <Section title="Targeting & creatives">
        <Form.Item
          name="targetingId"
          label={label('targetingId', 'Targeting')}
          extra="None = bid on all traffic the supply below sends"
        >
          <RefSelect kind="targetings" placeholder="None (all traffic)" />
        </Form.Item>
        <Form.Item name="creativeIds" label={label('creativeIds', 'Creatives')}>
          <RefSelect kind="creatives" multiple placeholder="Pick the creatives to rotate" />
        </Form.Item>
      </Section>

      <Section title="Supply">
        <ChannelAssignmentFields form={form} label={label} />
        <Form.Item name="dealIds" label={label('dealIds', 'Deals')}>
          <RefSelect kind="deals" multiple placeholder="None (open auction only)" />
        </Form.Item>
        <Form.Item name="supplierIds" label={label('supplierIds', 'Suppliers')}>
          <RefSelect kind="sups" multiple placeholder="None" />
        </Form.Item>
        <Form.Item name="adExchangeIds" label={label('adExchangeIds', 'Ad exchanges')}>
          <RefSelect kind="adexchanges" multiple placeholder="None" />
        </Form.Item>
      </Section>
    </div>
  );
}

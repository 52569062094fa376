import { Col, DatePicker, Form, Row, Select } from 'antd';
import { AUCTION_TYPES } from '@adplane/shared';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { MoneyInput, RefSelect } from '../../resources/fields.js';
import { DATE_FORMAT } from '../dsp/flightDates.js';
import { useHelpLabel } from '../../resources/fields.js';
import { LimitedInput, lengthRule, NameField, StatusField } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import '../dsp/dsp.css';

export const AUCTION_TYPE_OPTIONS = AUCTION_TYPES.map((a) => ({ value: a.id, label: a.label }));

/** What the chosen auction type means for the price a buyer pays (OpenRTB imp.pmp.deals.at). */
export const AUCTION_TYPE_HINTS: Readonly<Record<number, string>> = {
  1: 'First price: a winning buyer pays its bid, at least the floor',
  2: "Second price: a winning buyer pays the runner-up's bid plus $0.01, at least the floor",
  3: 'Fixed price: the floor is the price every buyer pays',
};

export function DealForm({ form }: ResourceFormProps) {
  const label = useHelpLabel('deals');
  const auctionType = Form.useWatch('auctionType', form) as number | undefined;
  return (
    <div className="dsp-form">
      <Row gutter={16}>
        <Col span={16}>
          <NameField placeholder="e.g. Blue Fin Foods - CTV PMP" />
        </Col>
        <Col span={8}>
          <StatusField />
        </Col>
      </Row>
      <Section title="Terms">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="dealId"
              label={label('dealId', 'Deal ID')}
              extra="As it appears in bid requests (imp.pmp.deals.id)"
              rules={[
                { required: true, whitespace: true, message: 'Enter the deal ID' },
                lengthRule(128),
                { pattern: /^[A-Za-z0-9._:-]+$/, message: 'Letters, digits and . _ : - only' },
              ]}
            >
              <LimitedInput className="dsp-mono" placeholder="e.g. NW-BF-CTV-2026-001" max={128} />
            </Form.Item>
          </Col>
          <Col span={6}>
            <Form.Item name="floorCpm" label={label('floorCpm', 'Floor CPM')}>
              <MoneyInput />
            </Form.Item>
          </Col>
          <Col span={6}>
            <Form.Item
              name="auctionType"
              label={label('auctionType', 'Auction type')}
              extra={AUCTION_TYPE_HINTS[auctionType ?? 0] ?? 'How a winning buyer pays'}
            >
              <Select options={AUCTION_TYPE_OPTIONS} aria-label="Auction type" />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          name="buyerSeats"
          label={label('buyerSeats', 'Buyer seats')}
          extra="Seat ids allowed to bid on this deal; type one and press Enter. None = any buyer"
        >
          <Select
            mode="tags"
            tokenSeparators={[',', ' ']}
            open={false}
            suffixIcon={null}
            placeholder="e.g. ttd-bluefin-4471"
            aria-label="Buyer seats"
          />
        </Form.Item>
        <Form.Item
          name="supplierIds"
          label={label('supplierIds', 'Suppliers')}
          extra="Suppliers whose bid requests carry this deal"
        >
          <RefSelect kind="sups" multiple placeholder="None" />
        </Form.Item>
      </Section>
      <Section title="Flight">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item name="startDate" label={label('startDate', 'Start date')}>
              <DatePicker format={DATE_FORMAT} placeholder="No start date" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="endDate" label={label('endDate', 'End date')}>
              <DatePicker format={DATE_FORMAT} placeholder="No end date" />
            </Form.Item>
          </Col>
        </Row>
      </Section>
    </div>
  );
}

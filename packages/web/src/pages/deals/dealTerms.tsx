import { type ReactNode } from 'react';
import { Col, DatePicker, Form, type FormInstance, Row, Select } from 'antd';
import { AUCTION_TYPES } from '@adplane/shared';
import { MoneyInput } from '../../resources/fields.js';
import { LimitedInput, lengthRule } from '../../resources/formParts.js';
import { DATE_FORMAT } from '../dsp/flightDates.js';
import { Section } from '../dsp/formParts.js';

/**
 * The parts of a deal's drawer that a deal bought (DSP: Deals) and a deal sold (SSP: Supply Deals)
 * share: its id, floor and auction type, the buyer seats typed as words, and its flight.
 */

const AUCTION_TYPE_OPTIONS = AUCTION_TYPES.map((a) => ({ value: a.id, label: a.label }));

/** The auction types by id, as the lists show them. */
export const AUCTION_LABELS = new Map<number, string>(AUCTION_TYPE_OPTIONS.map((o) => [o.value, o.label]));

/** What the chosen auction type means for the price a buyer pays (OpenRTB imp.pmp.deals.at). */
export const AUCTION_TYPE_HINTS: Readonly<Record<number, string>> = {
  1: 'First price: a winning buyer pays its bid, at least the floor',
  2: "Second price: a winning buyer pays the runner-up's bid plus $0.01, at least the floor",
  3: 'Fixed price: the floor is the price every buyer pays',
};

type Label = (field: string, text: ReactNode) => ReactNode;

/** A list of words typed one by one (seats, domains): Enter, a comma or a space ends one. */
export function WordList({ placeholder, label, ...rest }: { placeholder: string; label: string }) {
  return (
    <Select
      {...rest}
      mode="tags"
      tokenSeparators={[',', ' ']}
      open={false}
      suffixIcon={null}
      placeholder={placeholder}
      aria-label={label}
    />
  );
}

/** The deal id (as bid requests carry it), its floor and its auction type, with what that type means. */
export function DealIdFloorAuction({
  form,
  label,
  idExtra,
  idPlaceholder,
}: {
  form: FormInstance;
  label: Label;
  idExtra: string;
  idPlaceholder: string;
}) {
  const auctionType = Form.useWatch('auctionType', form) as number | undefined;
  return (
    <Row gutter={16}>
      <Col span={12}>
        <Form.Item
          name="dealId"
          label={label('dealId', 'Deal ID')}
          extra={idExtra}
          rules={[
            { required: true, whitespace: true, message: 'Enter the deal ID' },
            lengthRule(128),
            { pattern: /^[A-Za-z0-9._:-]+$/, message: 'Letters, digits and . _ : - only' },
          ]}
        >
          <LimitedInput className="dsp-mono" placeholder={idPlaceholder} max={128} />
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
  );
}

/** The deal's flight: whole days in the tenant's time zone, either end open. */
export function DealFlight({ label }: { label: Label }) {
  return (
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
  );
}

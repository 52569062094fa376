import { Col, DatePicker, Form, Row, Select, Switch } from 'antd';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { MoneyInput, RefSelect, useHelpLabel } from '../../resources/fields.js';
import { type ListItem } from '../../api/lists.js';
import { LimitedInput, lengthRule, NameField, StatusField } from '../../resources/formParts.js';
import { DATE_FORMAT } from '../dsp/flightDates.js';
import { Section } from '../dsp/formParts.js';
import { AUCTION_TYPE_HINTS, AUCTION_TYPE_OPTIONS } from '../deals/DealForm.js';
import '../dsp/dsp.css';

/** Only OpenRTB demand tags (RTB, and Prebid through Prebid Server) carry a deal in their bid requests. */
const ortbTag = (item: ListItem): boolean => item.integration === 'RTB' || item.integration === 'PreBid';

/** A list of words typed one by one (seats, domains): Enter, a comma or a space ends one. */
function WordList({ placeholder, label, ...rest }: { placeholder: string; label: string }) {
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

/** The drawer of a supply deal: its terms for buyers, what it covers, whom it is offered to and its flight. */
export function SupplyDealForm({ form }: ResourceFormProps) {
  const label = useHelpLabel('supplydeals');
  const auctionType = Form.useWatch('auctionType', form) as number | undefined;
  return (
    <div className="dsp-form">
      <Row gutter={16}>
        <Col span={16}>
          <NameField placeholder="e.g. Sports CTV - Q1 PMP" />
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
              extra="Sent to buyers in imp.pmp.deals.id; their bids name it in dealid"
              rules={[
                { required: true, whitespace: true, message: 'Enter the deal ID' },
                lengthRule(128),
                { pattern: /^[A-Za-z0-9._:-]+$/, message: 'Letters, digits and . _ : - only' },
              ]}
            >
              <LimitedInput className="dsp-mono" placeholder="e.g. NW-SPORTS-CTV-001" max={128} />
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
          name="privateAuction"
          label={label('privateAuction', 'Private auction')}
          valuePropName="checked"
          extra="While the deal is in force on a request, only bids on deals can win it (no open auction)"
        >
          <Switch aria-label="Private auction" />
        </Form.Item>
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="buyerSeats"
              label={label('buyerSeats', 'Buyer seats')}
              extra="Seats allowed to bid on the deal (wseat); none = any seat"
            >
              <WordList placeholder="e.g. dsp-seat-4471" label="Buyer seats" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              name="advertiserDomains"
              label={label('advertiserDomains', 'Advertiser domains')}
              extra="Advertisers allowed to buy it (wadomain); none = any advertiser"
            >
              <WordList placeholder="e.g. brand.example.com" label="Advertiser domains" />
            </Form.Item>
          </Col>
        </Row>
      </Section>
      <Section title="Inventory">
        <Form.Item
          name="channelIds"
          label={label('channelIds', 'Channels')}
          extra="The channels it sells; none = every channel of the account"
        >
          <RefSelect kind="channels" multiple placeholder="Every channel" />
        </Form.Item>
        <Form.Item
          name="targetingId"
          label={label('targetingId', 'Targeting')}
          extra="Only the requests of those channels this targeting lets through"
        >
          <RefSelect kind="targetings" placeholder="None (all their traffic)" />
        </Form.Item>
        <Form.Item
          name="tagIds"
          label={label('tagIds', 'Demand tags')}
          extra="The RTB and Prebid tags whose bid requests carry the deal; none = every one the channels call"
        >
          <RefSelect kind="tags" multiple placeholder="Every RTB and Prebid tag" only={ortbTag} />
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

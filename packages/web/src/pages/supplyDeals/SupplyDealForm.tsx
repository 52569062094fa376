import { Col, Form, Row, Switch } from 'antd';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { RefSelect, useHelpLabel } from '../../resources/fields.js';
import { type ListItem } from '../../api/lists.js';
import { NameField, StatusField } from '../../resources/formParts.js';
import { LimitInput } from '../../resources/unitFields.js';
import { Section } from '../dsp/formParts.js';
import { DealFlight, DealIdFloorAuction, WordList } from '../deals/dealTerms.js';
import '../dsp/dsp.css';

/** Only OpenRTB demand tags (RTB, and Prebid through Prebid Server) carry a deal in their bid requests. */
const ortbTag = (item: ListItem): boolean => item.integration === 'RTB' || item.integration === 'PreBid';

/** The drawer of a supply deal: its terms for buyers, what it covers, whom it is offered to and its flight. */
export function SupplyDealForm({ form }: ResourceFormProps) {
  const label = useHelpLabel('supplydeals');
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
        <DealIdFloorAuction
          form={form}
          label={label}
          idExtra="Sent to buyers in imp.pmp.deals.id; their bids name it in dealid"
          idPlaceholder="e.g. NW-SPORTS-CTV-001"
        />
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
          <RefSelect kind="tags" multiple placeholder="Every RTB and Prebid tag" offers={ortbTag} />
        </Form.Item>
      </Section>
      <DealFlight label={label} />
      <Section title="Impression caps">
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="impCap"
              label={label('impCap', 'Impression cap')}
              extra="Impressions over the deal's life; once reached it is no longer offered. Empty = unlimited"
            >
              <LimitInput data-testid="deal-imp-cap" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              name="dailyImpCap"
              label={label('dailyImpCap', 'Daily impression cap')}
              extra="Impressions per day in the account's time zone. Empty = unlimited"
            >
              <LimitInput data-testid="deal-daily-imp-cap" />
            </Form.Item>
          </Col>
        </Row>
      </Section>
    </div>
  );
}

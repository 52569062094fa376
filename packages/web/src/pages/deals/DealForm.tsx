import { Col, Form, Row } from 'antd';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { RefSelect, useHelpLabel } from '../../resources/fields.js';
import { NameField, StatusField } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import { DealFlight, DealIdFloorAuction, WordList } from './dealTerms.js';
import '../dsp/dsp.css';

export function DealForm({ form }: ResourceFormProps) {
  const label = useHelpLabel('deals');
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
        <DealIdFloorAuction
          form={form}
          label={label}
          idExtra="As it appears in bid requests (imp.pmp.deals.id)"
          idPlaceholder="e.g. NW-BF-CTV-2026-001"
        />
        <Form.Item
          name="buyerSeats"
          label={label('buyerSeats', 'Buyer seats')}
          extra="Seat ids allowed to bid on this deal; type one and press Enter. None = any buyer"
        >
          <WordList placeholder="e.g. ttd-bluefin-4471" label="Buyer seats" />
        </Form.Item>
        <Form.Item
          name="supplierIds"
          label={label('supplierIds', 'Suppliers')}
          extra="Suppliers whose bid requests carry this deal"
        >
          <RefSelect kind="sups" multiple placeholder="None" />
        </Form.Item>
      </Section>
      <DealFlight label={label} />
    </div>
  );
}

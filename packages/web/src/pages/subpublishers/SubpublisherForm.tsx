import { Col, Form, Input, Row, Select, Switch } from 'antd';
import { SELLER_TYPES } from '@adplane/shared';
import { useHelpLabel } from '../../resources/fields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { AccountFields } from '../accounts/AccountFields.js';
import { AssignedRows, SUBPUBLISHER_GROUPS } from '../accounts/assigned.js';
import { DOMAIN_RULE, statusSwitch } from '../accounts/formParts.js';
import { SectionTitle, trimmed } from '../../resources/formParts.js';

const SELLER_TYPE_LABELS: Record<(typeof SELLER_TYPES)[number], string> = {
  PUBLISHER: 'Publisher (owns the inventory)',
  INTERMEDIARY: 'Intermediary (resells it)',
  BOTH: 'Both',
};

/** A subpublisher: its sign-in, and its entry in the tenant's sellers.json. */
export function SubpublisherForm({ row }: ResourceFormProps) {
  const label = useHelpLabel('subs');
  return (
    <>
      <AccountFields kind="subs" row={row} />
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="domain" normalize={trimmed} label={label('domain', 'Domain')} rules={[DOMAIN_RULE]}>
            <Input placeholder="publisher.com" data-testid="account-domain" />
          </Form.Item>
        </Col>
      </Row>

      <SectionTitle>sellers.json entry</SectionTitle>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name={['sellersJson', 'type']} label={label('sellersJson.type', 'Seller type')}>
            <Select options={SELLER_TYPES.map((t) => ({ value: t, label: SELLER_TYPE_LABELS[t] }))} />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name={['sellersJson', 'id']} label={label('sellersJson.id', 'Seller ID')} rules={[{ max: 100 }]}>
            <Input placeholder="As in the ads.txt lines" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            name={['sellersJson', 'name']}
            label={label('sellersJson.name', 'Seller name')}
            rules={[{ max: 255 }]}
          >
            <Input placeholder="Legal name of the seller" />
          </Form.Item>
        </Col>
        <Col span={6}>
          <Form.Item name={['sellersJson', 'status']} label={label('sellersJson.status', 'Active')} {...statusSwitch}>
            <Switch />
          </Form.Item>
        </Col>
        <Col span={6}>
          <Form.Item
            name={['sellersJson', 'confidential']}
            label={label('sellersJson.confidential', 'Confidential')}
            extra="Name hidden in sellers.json"
            {...statusSwitch}
          >
            <Switch />
          </Form.Item>
        </Col>
      </Row>
      <AssignedRows accountId={row?.id} groups={SUBPUBLISHER_GROUPS} />
    </>
  );
}

import { Col, Form, Input, Row } from 'antd';
import { useHelpLabel } from '../../resources/fields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { AccountFields } from '../accounts/AccountFields.js';
import { ADVERTISER_GROUPS, AssignedRows } from '../accounts/assigned.js';
import { DOMAIN_RULE } from '../accounts/formParts.js';
import { trimmed } from '../../resources/formParts.js';

/** An advertiser: its sign-in (it sees the tags, campaigns and creatives assigned to it) and its domain. */
export function AdvertiserForm({ row }: ResourceFormProps) {
  const label = useHelpLabel('advs');
  return (
    <>
      <AccountFields kind="advs" row={row} />
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item
            name="domain"
            normalize={trimmed}
            label={label('domain', 'Domain')}
            rules={[DOMAIN_RULE]}
            extra="The advertiser's site, as in bid responses (adomain)"
          >
            <Input placeholder="brand.com" data-testid="account-domain" />
          </Form.Item>
        </Col>
      </Row>
      <AssignedRows accountId={row?.id} groups={ADVERTISER_GROUPS} />
    </>
  );
}

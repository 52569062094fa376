import { Button, Col, Form, Row, Select, Switch, Typography } from 'antd';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { SELLER_TYPES, type UserType } from '@adplane/shared';
import { LimitedInput, lengthRule, trimmed } from '../../resources/formParts.js';

const SELLER_TYPE_OPTIONS = SELLER_TYPES.map((type) => ({ value: type, label: type }));
const required = [{ required: true, whitespace: true, message: '' }];

/** Demand: the account's sellers.json entries (id, domain, name). */
function DemandSellers({ readOnly }: { readOnly: boolean }) {
  return (
    <Form.List name="demandSellers">
      {(fields, { add, remove }) => (
        <div className="sellers-table" data-testid="sellers-table">
          <Row gutter={8} className="sellers-head">
            <Col span={6}>Seller ID</Col>
            <Col span={8}>Domain</Col>
            <Col span={8}>Name</Col>
          </Row>
          {fields.length === 0 && (
            <Typography.Paragraph type="secondary">No sellers.json entries.</Typography.Paragraph>
          )}
          {fields.map((field) => (
            <Row gutter={8} key={field.key} className="sellers-row" data-testid="sellers-row">
              <Col span={6}>
                <Form.Item name={[field.name, 'id']} rules={[...required, lengthRule(100)]}>
                  <LimitedInput max={100} placeholder="Seller ID" />
                </Form.Item>
              </Col>
              <Col span={8}>
                <Form.Item name={[field.name, 'domain']} normalize={trimmed} rules={[...required, lengthRule(255)]}>
                  <LimitedInput max={255} placeholder="example.com" />
                </Form.Item>
              </Col>
              <Col span={8}>
                <Form.Item name={[field.name, 'name']} rules={[...required, lengthRule(255)]}>
                  <LimitedInput max={255} placeholder="Company name" />
                </Form.Item>
              </Col>
              <Col span={2}>
                {!readOnly && (
                  <Button
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label="Remove entry"
                    onClick={() => remove(field.name)}
                  />
                )}
              </Col>
            </Row>
          ))}
          {!readOnly && (
            <Button
              icon={<PlusOutlined />}
              onClick={() => add({ id: '', domain: '', name: '' })}
              data-testid="sellers-add"
            >
              Add entry
            </Button>
          )}
        </div>
      )}
    </Form.List>
  );
}

/** Sub: the subpublisher's own sellers.json entry (read-only for the sub: an empty field shows the empty mark, ReadOnlyView). */
function SubSeller() {
  return (
    <Row gutter={16}>
      <Col span={12}>
        <Form.Item name={['subSeller', 'type']} label="Type">
          <Select options={SELLER_TYPE_OPTIONS} data-testid="sub-seller-type" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item name={['subSeller', 'name']} label="Name" rules={[lengthRule(255)]}>
          <LimitedInput max={255} data-testid="sub-seller-name" />
        </Form.Item>
      </Col>
      <Col span={12}>
        <Form.Item name={['subSeller', 'id']} label="Seller ID" rules={[lengthRule(100)]}>
          <LimitedInput max={100} data-testid="sub-seller-id" />
        </Form.Item>
      </Col>
      <Col span={6}>
        <Form.Item name={['subSeller', 'active']} label="Active" valuePropName="checked">
          <Switch />
        </Form.Item>
      </Col>
      <Col span={6}>
        <Form.Item name={['subSeller', 'confidential']} label="Confidential" valuePropName="checked">
          <Switch />
        </Form.Item>
      </Col>
    </Row>
  );
}

export function SellersTab({ type, readOnly }: { type: UserType; readOnly: boolean }) {
  return type === 'sub' ? <SubSeller /> : <DemandSellers readOnly={readOnly} />;
}

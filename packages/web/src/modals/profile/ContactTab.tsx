import { Button, Col, Form, Row } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { CONTACT_TYPES, type ContactType } from '@adplane/shared';
import { LimitedInput, lengthRule } from '../../resources/formParts.js';

const FIELDS = [
  { name: 'firstName', label: 'First name', max: 100, autoComplete: 'given-name' },
  { name: 'lastName', label: 'Last name', max: 100, autoComplete: 'family-name' },
  { name: 'position', label: 'Position', max: 100, autoComplete: 'organization-title' },
  { name: 'contactPhone', label: 'Contact phone', max: 50, autoComplete: 'tel' },
  { name: 'mobilePhone', label: 'Mobile phone', max: 50, autoComplete: 'tel' },
  { name: 'contactEmail', label: 'Contact e-mail', max: 255, autoComplete: 'email', email: true },
  { name: 'personalEmail', label: 'Personal e-mail', max: 255, autoComplete: 'email', email: true },
] as const;

interface Props {
  type: ContactType;
  readOnly: boolean;
  /** The General tab's 'Apply to all contacts' action; absent on the other tabs. */
  onApplyToAll?: () => void;
}

/** One contact (general, billing or technical); the form holds them in order in `contacts`. Read-only, an empty field shows the empty mark (ReadOnlyView). */
export function ContactTab({ type, readOnly, onApplyToAll }: Props) {
  const index = CONTACT_TYPES.indexOf(type);
  return (
    <div data-testid={`contact-${type}`}>
      <Row gutter={16}>
        {FIELDS.map((field) => (
          <Col span={12} key={field.name}>
            <Form.Item
              name={['contacts', index, field.name]}
              label={field.label}
              rules={[
                lengthRule(field.max),
                ...('email' in field ? [{ type: 'email' as const, message: 'Enter an e-mail address' }] : []),
              ]}
            >
              <LimitedInput
                max={field.max}
                autoComplete={field.autoComplete}
                data-testid={`contact-${type}-${field.name}`}
              />
            </Form.Item>
          </Col>
        ))}
      </Row>
      {onApplyToAll && !readOnly && (
        <Button icon={<CopyOutlined />} onClick={onApplyToAll} data-testid="apply-to-all-contacts">
          Apply to all contacts
        </Button>
      )}
    </div>
  );
}

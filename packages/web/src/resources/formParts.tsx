import { Col, Form, Input, Radio, Row } from 'antd';

interface NameProps {
  placeholder?: string;
  /** What the required-field error says. */
  message?: string;
  testId?: string;
  label?: string;
}

/**
 * The first row of every entity form: its name and its Active/Paused status. One definition, so
 * that every drawer says and checks the same thing.
 */
export function NameField({ placeholder, message = 'Enter a name', testId, label = 'Name' }: NameProps) {
  return (
    <Form.Item
      name="name"
      label={label}
      rules={[
        { required: true, whitespace: true, message },
        { max: 255, message: 'At most 255 characters' },
      ]}
    >
      <Input placeholder={placeholder} maxLength={255} data-testid={testId} />
    </Form.Item>
  );
}

export function StatusField() {
  return (
    <Form.Item name="status" label="Status">
      <Radio.Group
        optionType="button"
        options={[
          { value: 1, label: 'Active' },
          { value: 0, label: 'Paused' },
        ]}
      />
    </Form.Item>
  );
}

export function NameStatusRow(props: NameProps) {
  return (
    <Row gutter={16}>
      <Col flex="auto">
        <NameField {...props} />
      </Col>
      <Col>
        <StatusField />
      </Col>
    </Row>
  );
}

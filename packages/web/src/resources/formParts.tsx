import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Col, ConfigProvider, Form, Input, type InputProps, Radio, Row, Tooltip, Typography } from 'antd';
import { type ReactNode } from 'react';
import { UrlText } from '../components/UrlText.js';
import { copyText } from './clipboard.js';
import './forms.css';

interface NameProps {
  placeholder?: string;
  /** What the required-field error says. */
  message?: string;
  testId?: string;
  label?: string;
}

/** The longest name of any row (the shared schema's `name`). */
export const NAME_MAX = 255;

/**
 * A text box with its length limit shown as a count (`12 / 255`) that turns red past it. What is
 * typed or pasted is kept whole, never cut (`maxLength` would cut a paste silently): the field's
 * `lengthRule`, or the kind's schema, refuses a longer value with the limit in its message. A
 * read-only form (disabled) shows the value alone, as text.
 */
export function LimitedInput({ max, ...props }: InputProps & { max: number }) {
  const { componentDisabled } = ConfigProvider.useConfig();
  return <Input {...props} count={componentDisabled ? undefined : { show: true, max }} />;
}

/**
 * The `normalize` of a URL or domain field: a value pasted with spaces or a line break around it is
 * kept trimmed (the schema trims too, before its URL check), never refused for them.
 */
export const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);

/** Under a text box outside a form (a report's name): the limit's message once the value passes it. */
export function LengthNote({ value, max }: { value: string; max: number }) {
  if (value.trim().length <= max) return null;
  return (
    <Typography.Text type="danger" data-testid="length-note">
      At most {max} characters
    </Typography.Text>
  );
}

/** The rule of a text field's length limit: `At most 255 characters`. */
export const lengthRule = (max: number) => ({ max, message: `At most ${max} characters` });

/**
 * The first row of every entity form: its name and its Active/Paused status. One definition, so
 * that every drawer says and checks the same thing.
 */
export function NameField({ placeholder, message = 'Enter a name', testId, label = 'Name' }: NameProps) {
  return (
    <Form.Item name="name" label={label} rules={[{ required: true, whitespace: true, message }, lengthRule(NAME_MAX)]}>
      <LimitedInput placeholder={placeholder} max={NAME_MAX} data-testid={testId} />
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

/**
 * The heading of a group of fields: one style in every drawer and modal form (forms.css). Drawers
 * list these headings as jump links once a form has several (JumpLinks.tsx finds them by class).
 */
export function SectionTitle({ children }: { children: ReactNode }) {
  return <h4 className="form-section-title">{children}</h4>;
}

/** A titled group of fields inside a drawer or modal form. */
export function FormSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="form-section" aria-label={title}>
      <SectionTitle>{title}</SectionTitle>
      {children}
    </section>
  );
}

/**
 * A long value shown in a form (a URL with its macros filled, an endpoint): it wraps inside its own
 * box, scrolls there when very long, and has a copy action beside it, so that it never runs past the
 * drawer. The copy action works in the read-only view too.
 */
export function LongValue({
  value,
  copyLabel = 'Copy',
  testId,
}: {
  value: string;
  copyLabel?: string;
  testId?: string;
}) {
  const { message } = App.useApp();
  return (
    <div className="long-value">
      <pre className="long-value-text" data-testid={testId}>
        <UrlText text={value} />
      </pre>
      <Tooltip title={copyLabel}>
        <Button
          size="small"
          icon={<CopyOutlined />}
          aria-label={copyLabel}
          disabled={false}
          onClick={() => void copyText(value, message)}
          data-testid={testId ? `${testId}-copy` : undefined}
        />
      </Tooltip>
    </div>
  );
}

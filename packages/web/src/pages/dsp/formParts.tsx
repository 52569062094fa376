import { Form, Input, Radio } from 'antd';
import { type ReactNode } from 'react';
import { type ResourceKind } from '@adplane/shared';
import { HelpLabel, useFieldHelp } from '../../resources/fields.js';

/**
 * Pieces every DSP form shares. Forms are wrapped in `.dsp-form` (dsp.css) so that pickers fill
 * their grid column instead of shrinking to their content.
 */
export function NameField({ placeholder }: { placeholder?: string }) {
  return (
    <Form.Item
      name="name"
      label="Name"
      rules={[
        { required: true, whitespace: true, message: 'Enter a name' },
        { max: 255, message: 'At most 255 characters' },
      ]}
    >
      <Input placeholder={placeholder} maxLength={255} />
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

/** A titled group of fields inside a drawer form. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="dsp-section" aria-label={title}>
      <h4 className="dsp-section-title">{title}</h4>
      {children}
    </section>
  );
}

/** A field label with the (?) help text admins keep on the Tooltips page under `<kind>.<field>`. */
export function useHelpLabel(kind: ResourceKind): (field: string, label: string) => ReactNode {
  const help = useFieldHelp();
  return (field, label) => <HelpLabel label={label} help={help(`${kind}.${field}`)} />;
}

/** `0` means "no limit" for QPS limits and budgets. */
export function limitText(value: unknown, format: (v: number) => string = (v) => v.toLocaleString('en-US')): string {
  if (typeof value !== 'number') return '';
  return value === 0 ? 'Unlimited' : format(value);
}

import { Checkbox, Col, Form, InputNumber, Radio, Space } from 'antd';
import { type ReactNode } from 'react';
import {
  type Limit,
  type Price,
  type PriceType,
  UNLIMITED,
  formatPercent,
  fromMicros,
  toMicros,
} from '@adplane/shared';
import { MoneyInput, PercentInput, usd } from './fields.js';

/**
 * Inputs for the model's explicit units (packages/shared kinds): caps and budgets that are a number
 * or 'unlimited', and prices whose type says their unit (a CPM or a share).
 */

/**
 * A cap: a whole number, or 'unlimited' (the box ticked, or the number cleared). 0 is a real zero:
 * the row never serves. A negative number is kept as typed (not clamped to 0) for the kind's schema
 * to refuse on the field.
 */
export function LimitInput(props: {
  value?: Limit;
  onChange?: (v: Limit) => void;
  disabled?: boolean;
  id?: string;
  money?: boolean;
  'data-testid'?: string;
}) {
  const unlimited = props.value === UNLIMITED || props.value === undefined || props.value === null;
  const shown = typeof props.value === 'number' ? (props.money ? fromMicros(props.value) : props.value) : null;
  return (
    <Space.Compact block>
      <InputNumber<number>
        id={props.id}
        data-testid={props['data-testid']}
        prefix={props.money ? '$' : undefined}
        step={props.money ? 0.01 : 1}
        precision={props.money ? 2 : 0}
        placeholder="Unlimited"
        style={{ width: '100%' }}
        disabled={props.disabled}
        value={shown}
        onChange={(v) => props.onChange?.(v === null || v === undefined ? UNLIMITED : props.money ? toMicros(v) : v)}
      />
      <Checkbox
        style={{ marginLeft: 8, alignSelf: 'center', whiteSpace: 'nowrap' }}
        checked={unlimited}
        disabled={props.disabled}
        onChange={(e) => props.onChange?.(e.target.checked ? UNLIMITED : 0)}
        data-testid={props['data-testid'] ? `${props['data-testid']}-unlimited` : undefined}
      >
        Unlimited
      </Checkbox>
    </Space.Compact>
  );
}

/** `Unlimited` or the formatted number. */
export function limitText(value: unknown, format: (v: number) => string = (v) => v.toLocaleString('en-US')): string {
  if (value === UNLIMITED) return 'Unlimited';
  return typeof value === 'number' ? format(value) : '';
}

/** `$4.50 CPM` or `70.00% share`. */
export function priceText(price: unknown): string {
  const p = price as Partial<Price> | undefined;
  if (p?.type === 'cpm' && typeof p.cpm === 'number') return `${usd(p.cpm)} CPM`;
  if (p?.type === 'revshare' && typeof p.percent === 'number') return `${formatPercent(p.percent)} share`;
  return '';
}

/**
 * A price as two fields (two grid columns of the caller's Row), `<name>.type` and `<name>.cpm` or `<name>.percent`, so that the server's
 * errors (`price.percent: must be between 0 and 100`) land on the amount the user typed.
 */
export function PriceFields(props: {
  name: 'price' | 'payout';
  label: (field: string, text: ReactNode) => ReactNode;
  typeLabel: string;
  typeOptions: { value: PriceType; label: string }[];
  cpmLabel: string;
  cpmExtra: string;
  percentLabel: string;
  percentExtra: string;
  defaultPercent: number;
  testId: string;
}) {
  const form = Form.useFormInstance();
  const type = Form.useWatch([props.name, 'type'], form) as PriceType | undefined;
  return (
    <>
      <Col span={9}>
        <Form.Item name={[props.name, 'type']} label={props.label(props.name, props.typeLabel)}>
          <Radio.Group
            optionType="button"
            options={props.typeOptions}
            onChange={(e) =>
              form.setFieldValue(
                props.name,
                e.target.value === 'revshare'
                  ? { type: 'revshare', percent: props.defaultPercent }
                  : { type: 'cpm', cpm: 0 },
              )
            }
            data-testid={`${props.testId}-type`}
          />
        </Form.Item>
      </Col>
      <Col span={7}>
        {type === 'revshare' ? (
          <Form.Item
            name={[props.name, 'percent']}
            label={props.percentLabel}
            extra={props.percentExtra}
            rules={[{ required: true, message: 'Enter the share' }]}
            preserve={false}
          >
            <PercentInput />
          </Form.Item>
        ) : (
          <Form.Item
            name={[props.name, 'cpm']}
            label={props.cpmLabel}
            extra={props.cpmExtra}
            rules={[{ required: true, message: 'Enter the CPM' }]}
            preserve={false}
          >
            <MoneyInput data-testid={`${props.testId}-cpm`} />
          </Form.Item>
        )}
      </Col>
    </>
  );
}

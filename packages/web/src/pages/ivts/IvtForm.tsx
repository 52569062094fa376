import { AutoComplete, Col, Form, Input, InputNumber, Radio, Row, Slider, Space, Tooltip, Typography } from 'antd';
import { type TextAreaRef } from 'antd/es/input/TextArea';
import { useRef } from 'react';
import { IVT_MACROS } from '@adplane/shared';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { HelpLabel, useFieldHelp } from '../../resources/fields.js';
import { MACRO_INFO, insertMacro, previewPixel, unknownMacros } from './macros.js';
import { lengthRule, LongValue, NameStatusRow, trimmed } from '../../resources/formParts.js';
import '../tags/tags.css';

export const IVT_STAGE_LABELS: Record<string, string> = { prebid: 'Pre-bid', postbid: 'Post-bid' };

/** Vendors ad-ops teams use most; any other name can be typed. */
const VENDORS = [
  'Pixalate',
  'HUMAN',
  'DoubleVerify',
  'Integral Ad Science',
  'Protected Media',
  'Fraudlogix',
  'CHEQ',
  'Moat',
];

/** The pixel URL with buttons that put a macro where the cursor is, and a preview of one call. */
function UrlTemplateInput(props: { value?: string; onChange?: (v: string) => void; disabled?: boolean; id?: string }) {
  const ref = useRef<TextAreaRef>(null);
  const value = props.value ?? '';
  const insert = (macro: string) => {
    const el = ref.current?.resizableTextArea?.textArea;
    const next = insertMacro(value, el?.selectionStart, el?.selectionEnd, macro);
    props.onChange?.(next.text);
    // Put the cursor after the macro once React has written the new text.
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(next.caret, next.caret);
    });
  };
  return (
    <div>
      <Input.TextArea
        ref={ref}
        id={props.id}
        value={value}
        onChange={(e) => props.onChange?.(e.target.value)}
        disabled={props.disabled}
        autoSize={{ minRows: 3, maxRows: 8 }}
        spellCheck={false}
        placeholder="https://pixel.vendor.example/ivt?ip={{ip}}&ua={{user_agent}}&cb={{cachebuster}}"
        style={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 13 }}
        data-testid="ivt-url"
      />
      {!props.disabled && (
        // The same macro chips as under a tag's VAST URL (tags.css).
        <div className="macro-helper" style={{ margin: '8px 0 0' }}>
          <Typography.Text type="secondary" className="macro-helper-title">
            Insert a macro:
          </Typography.Text>
          {IVT_MACROS.map((m) => (
            <Tooltip key={m} title={`${MACRO_INFO[m].label}, e.g. ${MACRO_INFO[m].example}`}>
              <button
                type="button"
                className="macro-chip"
                onClick={() => insert(m)}
                data-testid={`ivt-macro-${m.slice(2, -2)}`}
              >
                {m}
              </button>
            </Tooltip>
          ))}
        </div>
      )}
      {value.trim() !== '' && (
        <div style={{ marginTop: 8 }}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            Example call, with sample values:
          </Typography.Text>
          <LongValue value={previewPixel(value.trim())} copyLabel="Copy the example call" testId="ivt-preview" />
        </div>
      )}
    </div>
  );
}

/** A 0-100 slider with the number beside it, for the share of requests that fire the pixel. */
function SampleInput(props: {
  value?: number;
  onChange?: (v: number | undefined) => void;
  disabled?: boolean;
  id?: string;
}) {
  const value = props.value ?? 100;
  return (
    <Row gutter={12} align="middle">
      <Col flex="auto">
        <Slider
          min={0}
          max={100}
          step={1}
          value={value}
          onChange={(v) => props.onChange?.(v)}
          disabled={props.disabled}
          marks={{ 0: '0%', 10: '10%', 50: '50%', 100: '100%' }}
        />
      </Col>
      <Col>
        <InputNumber<number>
          id={props.id}
          step={1}
          suffix="%"
          style={{ width: 110 }}
          value={value}
          onChange={(v) => props.onChange?.(v ?? undefined)}
          disabled={props.disabled}
          data-testid="ivt-sample"
        />
      </Col>
    </Row>
  );
}

/** The drawer of a 3rd-party (IVT) pixel: vendor, URL template with macros, stage and sample rate. */
export function IvtForm({ readOnly }: ResourceFormProps) {
  const help = useFieldHelp();
  const label = (text: string, key: string) => <HelpLabel label={text} help={help(`ivts.${key}`)} />;
  return (
    <>
      <NameStatusRow placeholder="e.g. Pixalate pre-bid IVT check" message="Give the pixel a name" testId="ivt-name" />
      <Form.Item
        name="vendor"
        label={label('Vendor', 'vendor')}
        rules={[{ required: true, whitespace: true, message: 'Name the IVT vendor' }, lengthRule(100)]}
      >
        <AutoComplete
          options={VENDORS.map((v) => ({ value: v }))}
          showSearch={{
            filterOption: (input, option) =>
              String(option?.value ?? '')
                .toLowerCase()
                .includes(input.toLowerCase()),
          }}
          placeholder="Pixalate, HUMAN, DoubleVerify..."
          data-testid="ivt-vendor"
        />
      </Form.Item>
      <Form.Item
        name="urlTemplate"
        normalize={trimmed}
        label={label('Pixel URL', 'urlTemplate')}
        extra="The ad server fills the macros for each request it sends to the vendor."
        rules={[
          { required: true, whitespace: true, message: 'Paste the pixel URL the vendor gave you' },
          {
            warningOnly: true,
            validator: async (_r, v: string | undefined) => {
              const unknown = unknownMacros(v ?? '');
              if (unknown.length)
                throw new Error(
                  `${unknown.join(' ')} ${unknown.length === 1 ? 'is not a macro' : 'are not macros'} the ad server fills`,
                );
            },
          },
        ]}
      >
        <UrlTemplateInput disabled={readOnly} />
      </Form.Item>
      <Form.Item name="stage" label={label('Stage', 'stage')}>
        <Radio.Group data-testid="ivt-stage">
          <Space orientation="vertical" size={4}>
            <Radio value="prebid">
              Pre-bid{' '}
              <Typography.Text type="secondary">
                (checked before the auction; can stop a suspicious request)
              </Typography.Text>
            </Radio>
            <Radio value="postbid">
              Post-bid <Typography.Text type="secondary">(fired with the ad; measures the impression)</Typography.Text>
            </Radio>
          </Space>
        </Radio.Group>
      </Form.Item>
      <Form.Item
        name="samplePercent"
        label={label('Sample', 'samplePercent')}
        extra="Share of requests that fire the pixel (vendors often bill per call)."
      >
        <SampleInput disabled={readOnly} />
      </Form.Item>
    </>
  );
}

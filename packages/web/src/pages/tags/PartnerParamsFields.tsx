import { Alert, Button, Col, Form, Input, InputNumber, Row, Select, Switch, Tag, Typography } from 'antd';
import { type Rule } from 'antd/es/form';
import { type ReactNode, useState } from 'react';
import { type PartnerParam, partnerById } from '@adplane/shared';
import { rangeRule } from '../../resources/rangeRule.js';
import { paramInput, requiredSetsText, suggestedSets } from './partnerParams.js';

type Path = (string | number)[];

function patternRule(pattern: string | undefined): Rule[] {
  if (!pattern) return [];
  try {
    return [{ pattern: new RegExp(pattern, 'u'), message: `Must match ${pattern}` }];
  } catch {
    // A JSON Schema pattern JavaScript cannot read: the server still checks it.
    return [];
  }
}

const jsonRule = (param: PartnerParam): Rule => ({
  validator: async (_rule, value: unknown) => {
    if (typeof value !== 'string' || value.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error('Enter valid JSON');
    }
    if (param.type === 'array' && !Array.isArray(parsed)) throw new Error('Enter a JSON list: [ ... ]');
    if (param.type === 'object' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)))
      throw new Error('Enter a JSON object: { ... }');
  },
});

const numberTagsRule: Rule = {
  validator: async (_rule, value: unknown) => {
    if (Array.isArray(value) && value.some((v) => !/^-?\d+(\.\d+)?$/.test(String(v).trim())))
      throw new Error('Every entry must be a number');
  },
};

function placeholderOf(param: PartnerParam): string | undefined {
  if (param.type === 'array' && param.itemType === 'object') return '[{"key": "value"}]';
  if (param.type === 'object') return '{"key": "value"}';
  return undefined;
}

/** The input of one parameter; the Form.Item gives it value and onChange. */
function inputOf(param: PartnerParam, id: string): ReactNode {
  const kind = paramInput(param);
  switch (kind) {
    case 'number':
      return (
        <InputNumber
          id={id}
          data-testid={`param-${id}`}
          style={{ width: '100%' }}
          precision={param.type === 'integer' ? 0 : undefined}
          placeholder={param.type === 'integer' ? 'Whole number' : 'Number'}
        />
      );
    case 'switch':
      return <Switch id={id} />;
    case 'select':
      return (
        <Select
          id={id}
          allowClear
          placeholder="Not set"
          options={(param.enum ?? []).map((v) => ({ value: v as string | number, label: String(v) }))}
        />
      );
    case 'tags':
    case 'numberTags':
      return (
        <Select
          id={id}
          mode="tags"
          open={false}
          suffixIcon={null}
          tokenSeparators={[',', ' ']}
          placeholder="Type a value and press Enter"
        />
      );
    case 'json':
      return (
        <Input.TextArea
          id={id}
          autoSize={{ minRows: 1, maxRows: 6 }}
          placeholder={placeholderOf(param)}
          style={{ fontFamily: 'monospace' }}
        />
      );
    default:
      return <Input id={id} data-testid={`param-${id}`} minLength={param.minLength} maxLength={param.maxLength} />;
  }
}

function ParamLabel({ param }: { param: PartnerParam }) {
  return (
    <span>
      <Typography.Text code>{param.name}</Typography.Text>
      {param.required && (
        <Tag color="red" variant="filled" style={{ marginLeft: 4 }}>
          required
        </Tag>
      )}
      {param.deprecated && (
        <Tag variant="filled" style={{ marginLeft: 4 }}>
          deprecated
        </Tag>
      )}
    </span>
  );
}

/** One parameter; inside an object parameter (`group`), a required field is required once the object is used. */
function ParamField({
  param,
  path,
  group,
}: {
  param: PartnerParam;
  path: Path;
  group?: { path: Path; fields: readonly PartnerParam[] };
}) {
  const kind = paramInput(param);
  const name = [...path, param.name];
  const id = name.join('_');

  if (kind === 'group') {
    return (
      <Col span={24}>
        <fieldset className="partner-group" data-testid={`param-group-${param.name}`}>
          <legend>
            <ParamLabel param={param} />
            {param.description && <Typography.Text type="secondary"> {param.description}</Typography.Text>}
          </legend>
          <Row gutter={12}>
            {(param.fields ?? []).map((f) => (
              <ParamField key={f.name} param={f} path={name} group={{ path: name, fields: param.fields ?? [] }} />
            ))}
          </Row>
        </fieldset>
      </Col>
    );
  }

  const rules: Rule[] = [];
  if (param.required && !group) rules.push({ required: true, message: `${param.name} is required` });
  if (param.required && group) {
    rules.push(({ getFieldValue }) => ({
      validator: async (_rule, value: unknown) => {
        const used = group.fields.some((f) => {
          const v: unknown = getFieldValue([...group.path, f.name]);
          return v !== undefined && v !== null && v !== '';
        });
        if (used && (value === undefined || value === null || value === ''))
          throw new Error(`${param.name} is required once ${group.path.at(-1)} is set`);
      },
    }));
  }
  if (kind === 'text') rules.push(...patternRule(param.pattern));
  if (kind === 'json') rules.push(jsonRule(param));
  if (kind === 'numberTags') rules.push(numberTagsRule);
  // the box takes no min or max (it would clamp what was typed): a number outside is refused here
  if (kind === 'number') rules.push(rangeRule(param.minimum, param.maximum));
  const extra = [param.description, param.requires?.length ? `Also needs ${param.requires.join(', ')}.` : '']
    .filter(Boolean)
    .join(' ');
  const wide = kind === 'json' || kind === 'tags' || kind === 'numberTags';

  return (
    <Col span={wide ? 24 : 12}>
      <Form.Item
        name={name}
        label={<ParamLabel param={param} />}
        extra={extra || undefined}
        rules={rules}
        valuePropName={kind === 'switch' ? 'checked' : 'value'}
        // Required inside an object once the object is used: not marked "(optional)", the tag says it.
        required={param.required ? true : undefined}
        dependencies={
          group ? group.fields.filter((f) => f.name !== param.name).map((f) => [...group.path, f.name]) : undefined
        }
      >
        {inputOf(param, id)}
      </Form.Item>
    </Col>
  );
}

/**
 * The parameter form of a PreBid tag's partner, built from the partner's parameter descriptors (its
 * Prebid Server JSON Schema): numbers as number inputs, booleans as switches, enums as selects,
 * lists as tag inputs, objects as nested groups or JSON. Deprecated spellings are tucked away until
 * asked for, unless the tag already uses them.
 */
export function PartnerParamsFields({ partnerId }: { partnerId: string | undefined }) {
  const form = Form.useFormInstance();
  const [showDeprecated, setShowDeprecated] = useState(false);
  const partner = partnerId ? partnerById(partnerId) : undefined;
  if (!partnerId)
    return <Typography.Paragraph type="secondary">Pick a partner to set its parameters.</Typography.Paragraph>;
  if (!partner)
    return (
      <Alert
        type="warning"
        showIcon
        title={`Partner "${partnerId}" is not in the partner catalogue: pick another one.`}
      />
    );

  const values = (form.getFieldValue('partnerParams') ?? {}) as Record<string, unknown>;
  const hasValue = (p: PartnerParam) =>
    values[p.name] !== undefined && values[p.name] !== null && values[p.name] !== '';
  const deprecated = partner.params.filter((p) => p.deprecated);
  const sets = suggestedSets(partner);

  return (
    <div className="partner-params" data-testid="partner-params">
      {sets.length > 1 && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          title={`${partner.name} needs ${requiredSetsText(sets)}.`}
        />
      )}
      <Row gutter={12}>
        {partner.params.map((p) => {
          const hidden = p.deprecated && !showDeprecated && !hasValue(p);
          // Hidden parameters stay in the form (their values are sent), only out of sight.
          return hidden ? (
            <Form.Item key={p.name} name={['partnerParams', p.name]} hidden noStyle>
              <Input />
            </Form.Item>
          ) : (
            <ParamField key={p.name} param={p} path={['partnerParams']} />
          );
        })}
      </Row>
      {deprecated.some((p) => !hasValue(p)) && (
        <Button type="link" size="small" style={{ paddingInline: 0 }} onClick={() => setShowDeprecated((v) => !v)}>
          {showDeprecated
            ? 'Hide deprecated parameters'
            : `Show ${deprecated.filter((p) => !hasValue(p)).length} deprecated parameters`}
        </Button>
      )}
    </div>
  );
}

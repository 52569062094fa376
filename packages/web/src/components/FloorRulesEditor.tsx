import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Input, InputNumber, Select, Space, Switch, Typography } from 'antd';
import { useRef, useState } from 'react';
import {
  compileFloorRules,
  FLOOR_FIELDS,
  type FloorFacts,
  type FloorField,
  type FloorInForce,
  floorInForceText,
  FloorRules,
  type FloorRulesInput,
  matchFloor,
} from '@adplane/shared';
import './floorRules.css';

/** The floor fields as the console names them, with what a value looks like. */
const FIELD_TEXT: Record<FloorField, { label: string; example: string }> = {
  mediaType: { label: 'Media type', example: 'video' },
  size: { label: 'Size', example: '640x360' },
  domain: { label: 'Domain', example: 'news.example.com' },
  bundle: { label: 'App bundle', example: 'com.example.app' },
  country: { label: 'Country', example: 'US' },
  deviceType: { label: 'Device type', example: 'smarttv' },
  hourOfDay: { label: 'Hour of day (UTC)', example: '20' },
  deal: { label: 'Deal id', example: 'deal-1' },
};

interface Row {
  parts: string[];
  floor: number | null;
}

/** The rule set as rows, one per rule: its parts by field and its floor. */
function rowsOf(value: FloorRulesInput): Row[] {
  const delimiter = value.schema.delimiter ?? '|';
  return Object.entries(value.values).map(([key, floor]) => ({ parts: key.split(delimiter), floor }));
}

function ruleSetOf(fields: FloorField[], rows: Row[], defaultFloor: number | null, delimiter: string): FloorRulesInput {
  const values: Record<string, number> = {};
  for (const r of rows) values[fields.map((_, i) => r.parts[i] ?? '').join(delimiter)] = r.floor ?? 0;
  return {
    schema: { fields, delimiter },
    values,
    ...(defaultFloor !== null ? { default: defaultFloor } : {}),
    currency: 'USD',
  };
}

/** What turning the rules off means, and what a request no rule matches gets, by whose rules they are. */
const SCOPE_TEXT = {
  channel: {
    off: "Off: the account's floor rules apply, else the floor CPM above for every request.",
    noDefault: 'when no rule matches (none: the floor CPM above)',
  },
  account: {
    off: 'Off: each channel without floor rules of its own holds every request to its floor CPM.',
    noDefault: "when no rule matches (none: the channel's floor CPM)",
  },
} as const;

/**
 * Floor rules in the shape of Prebid's floors module data, a channel's or an account's (the default
 * of its channels without their own): the fields a rule looks at (in order: on a tie the rule with
 * the `*` in the later field wins), a table of rules (a value or `*` per field, and the floor), a
 * default; and a preview of which rule a sample request gets. Off: null.
 */
export function FloorRulesEditor({
  value,
  onChange,
  staticFloorCpm = 0,
  readOnly,
  scope = 'channel',
}: {
  value?: FloorRulesInput | null;
  onChange?: (v: FloorRulesInput | null) => void;
  /** The channel's floor CPM (micro-dollars): a new rule set's catch-all, and what no rule gives. */
  staticFloorCpm?: number;
  readOnly: boolean;
  scope?: 'channel' | 'account';
}) {
  const on = !!value;
  const fields = (value?.schema.fields ?? []) as FloorField[];
  const delimiter = value?.schema.delimiter ?? '|';
  // the rows are kept here, so that two rows being edited into the same key both stay on screen; a
  // value the form sets from outside (the row loaded, a reset) replaces them
  const [rows, setRows] = useState<Row[]>(() => (value ? rowsOf(value) : []));
  const emitted = useRef<FloorRulesInput | null | undefined>(value);
  if (value !== emitted.current) {
    emitted.current = value;
    setRows(value ? rowsOf(value) : []);
  }
  const defaultFloor = value?.default ?? null;
  const change = (f: FloorField[], r: Row[], d: number | null) => {
    const next = ruleSetOf(f, r, d, delimiter);
    emitted.current = next;
    setRows(r);
    onChange?.(next);
  };
  const keys = rows.map((r) =>
    fields
      .map((_, i) => r.parts[i] ?? '')
      .join(delimiter)
      .toLowerCase(),
  );
  const repeated = keys.findIndex((k, i) => keys.indexOf(k) !== i);

  if (!on)
    return (
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Space>
          <Switch
            checked={false}
            disabled={readOnly}
            aria-label="Floor rules"
            data-testid="floor-rules-switch"
            onChange={() =>
              change(['mediaType', 'size'], [{ parts: ['*', '*'], floor: staticFloorCpm / 1_000_000 }], null)
            }
          />
          <Typography.Text type="secondary">{SCOPE_TEXT[scope].off}</Typography.Text>
        </Space>
      </Space>
    );

  return (
    <div className="floor-rules" data-testid="floor-rules">
      <Space style={{ marginBottom: 12 }} wrap>
        <Switch
          checked
          disabled={readOnly}
          aria-label="Floor rules"
          data-testid="floor-rules-switch"
          onChange={() => {
            emitted.current = null;
            setRows([]);
            onChange?.(null);
          }}
        />
        <Typography.Text>Rules look at</Typography.Text>
        <Select<FloorField[]>
          mode="multiple"
          data-testid="floor-rules-fields"
          style={{ minWidth: 360 }}
          disabled={readOnly}
          value={fields}
          options={FLOOR_FIELDS.map((f) => ({ value: f, label: FIELD_TEXT[f].label }))}
          onChange={(next) => {
            // a rule keeps its value of each field still chosen; a new field is `*` in every rule
            const moved = rows.map((r) => ({
              ...r,
              parts: next.map((f) => (fields.indexOf(f) >= 0 ? (r.parts[fields.indexOf(f)] ?? '*') : '*')),
            }));
            if (next.length) change(next, moved, defaultFloor);
          }}
        />
      </Space>
      <table className="floor-rules-table" data-testid="floor-rules-table">
        <thead>
          <tr>
            {fields.map((f) => (
              <th key={f}>{FIELD_TEXT[f].label}</th>
            ))}
            <th className="floor-rules-floor">Floor CPM (USD)</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; their order is the editing order
            <tr key={i} data-testid="floor-rule-row">
              {fields.map((f, j) => (
                <td key={f}>
                  <Input
                    size="small"
                    aria-label={`${FIELD_TEXT[f].label} of rule ${i + 1}`}
                    placeholder={`* or ${FIELD_TEXT[f].example}`}
                    disabled={readOnly}
                    value={r.parts[j] ?? ''}
                    onChange={(e) =>
                      change(
                        fields,
                        rows.map((x, k) =>
                          k === i ? { ...x, parts: x.parts.map((p, m) => (m === j ? e.target.value.trim() : p)) } : x,
                        ),
                        defaultFloor,
                      )
                    }
                  />
                </td>
              ))}
              <td className="floor-rules-floor">
                <InputNumber
                  size="small"
                  min={0}
                  step={0.05}
                  precision={2}
                  prefix="$"
                  aria-label={`Floor of rule ${i + 1}`}
                  disabled={readOnly}
                  value={r.floor}
                  onChange={(v) =>
                    change(
                      fields,
                      rows.map((x, k) => (k === i ? { ...x, floor: v } : x)),
                      defaultFloor,
                    )
                  }
                />
              </td>
              <td>
                {!readOnly && (
                  <Button
                    type="text"
                    danger
                    size="small"
                    icon={<DeleteOutlined />}
                    aria-label={`Remove rule ${i + 1}`}
                    onClick={() =>
                      change(
                        fields,
                        rows.filter((_, k) => k !== i),
                        defaultFloor,
                      )
                    }
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Space style={{ marginTop: 8 }} wrap>
        {!readOnly && (
          <Button
            size="small"
            icon={<PlusOutlined />}
            data-testid="floor-rule-add"
            onClick={() => change(fields, [...rows, { parts: fields.map(() => '*'), floor: null }], defaultFloor)}
          >
            Add rule
          </Button>
        )}
        <Typography.Text>Default floor</Typography.Text>
        <InputNumber
          size="small"
          min={0}
          step={0.05}
          precision={2}
          prefix="$"
          placeholder="none"
          aria-label="Default floor"
          data-testid="floor-rules-default"
          disabled={readOnly}
          value={defaultFloor}
          onChange={(v) => change(fields, rows, v)}
        />
        <Typography.Text type="secondary">{SCOPE_TEXT[scope].noDefault}</Typography.Text>
      </Space>
      {repeated >= 0 && (
        <Alert
          type="warning"
          showIcon
          style={{ marginTop: 8 }}
          data-testid="floor-rules-repeated"
          title={`Rule ${repeated + 1} repeats rule ${keys.indexOf(keys[repeated]!) + 1}: only one of them is kept`}
        />
      )}
      <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 8 }}>
        A value matches regardless of case; * matches anything. The most specific rule wins: fewer * first, and between
        two with as many, the one whose * is in the later field (Prebid's floors module order).
      </Typography.Paragraph>
      <FloorPreview value={value} fields={fields} staticFloorCpm={staticFloorCpm} scope={scope} />
    </div>
  );
}

/** Which rule a sample request gets: its values typed in, the floor in force and why, by the edge's own matcher. */
function FloorPreview({
  value,
  fields,
  staticFloorCpm,
  scope,
}: {
  value: FloorRulesInput;
  fields: FloorField[];
  staticFloorCpm: number;
  scope: 'channel' | 'account';
}) {
  const [facts, setFacts] = useState<FloorFacts>({});
  const parsed = FloorRules.safeParse(value);
  let outcome: { ok: true; floor: FloorInForce } | { ok: false; error: string };
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    outcome = { ok: false, error: `${issue.path.join('.')}: ${issue.message}` };
  } else {
    const match = matchFloor(compileFloorRules(parsed.data), facts);
    outcome = {
      ok: true,
      floor: match
        ? { source: scope, rule: match.rule, floorCpm: match.floorCpm }
        : { source: 'static', rule: null, floorCpm: staticFloorCpm },
    };
  }
  return (
    <div className="floor-preview" data-testid="floor-preview">
      <Typography.Text strong>Which rule applies</Typography.Text>
      <Space wrap style={{ display: 'flex', margin: '6px 0' }}>
        {fields.map((f) => (
          <Input
            key={f}
            size="small"
            style={{ width: 170 }}
            addonBefore={FIELD_TEXT[f].label}
            placeholder={FIELD_TEXT[f].example}
            aria-label={`Sample ${FIELD_TEXT[f].label}`}
            value={facts[f] ?? ''}
            onChange={(e) => setFacts({ ...facts, [f]: e.target.value.trim() })}
          />
        ))}
      </Space>
      {outcome.ok ? (
        <Alert type="info" showIcon data-testid="floor-preview-result" title={floorInForceText(outcome.floor)} />
      ) : (
        <Alert
          type="warning"
          showIcon
          data-testid="floor-preview-result"
          title={`Not a valid rule set: ${outcome.error}`}
        />
      )}
    </div>
  );
}

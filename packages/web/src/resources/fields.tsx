import { QuestionCircleOutlined } from '@ant-design/icons';
import { InputNumber, Select, Space, Tag, Tooltip } from 'antd';
import { type ReactNode, useCallback, useMemo } from 'react';
import { type ResourceKind, formatUsdMicros, fromMicros, toMicros } from '@adplane/shared';
import { type ListItem, useList } from '../api/lists.js';
import { listNameOf } from './resourceApi.js';

/**
 * Money is integer micro-dollars in the form's value; people type and read dollars. What is typed is
 * kept as typed (no bound clamps it: a negative amount stays negative for the kind's schema to refuse
 * on the field), and a cleared box is no value, never a silent $0.00.
 */
export function MoneyInput(props: {
  value?: number;
  onChange?: (micros: number | undefined) => void;
  disabled?: boolean;
  id?: string;
  'data-testid'?: string;
}) {
  return (
    <InputNumber<number>
      id={props.id}
      data-testid={props['data-testid']}
      prefix="$"
      step={0.01}
      precision={2}
      style={{ width: 160 }}
      disabled={props.disabled}
      value={props.value === undefined || props.value === null ? undefined : fromMicros(props.value)}
      onChange={(v) => props.onChange?.(v === null || v === undefined ? undefined : toMicros(v))}
    />
  );
}

/** A percent as typed: one outside 0-100 is kept for the schema to refuse on the field, not clamped. */
export function PercentInput(props: {
  value?: number;
  onChange?: (v: number | undefined) => void;
  disabled?: boolean;
  id?: string;
  'data-testid'?: string;
}) {
  return (
    <InputNumber<number>
      id={props.id}
      data-testid={props['data-testid']}
      suffix="%"
      step={0.5}
      precision={2}
      style={{ width: 140 }}
      disabled={props.disabled}
      value={props.value}
      onChange={(v) => props.onChange?.(v ?? undefined)}
    />
  );
}

/** Pick one or many rows of another kind from its shared list (archived rows are not offered). */
export function RefSelect(props: {
  kind: ResourceKind;
  value?: number | number[] | null;
  onChange?: (v: number | number[] | null) => void;
  multiple?: boolean;
  disabled?: boolean;
  placeholder?: string;
  id?: string;
  tenantId?: number | null;
  /** Which rows the picker offers (a supply deal's tags: the OpenRTB ones); all when absent. */
  offers?: (item: ListItem) => boolean;
}) {
  const name = listNameOf(props.kind);
  const { items, loading } = useList(name ?? 'tags');
  const options = (name ? items : [])
    .filter(
      (i) =>
        !i.archived &&
        (props.tenantId === undefined ||
          props.tenantId === null ||
          i.tenantId === undefined ||
          i.tenantId === props.tenantId) &&
        (!props.offers || props.offers(i)),
    )
    .map((i) => ({ value: Number(i.id), label: `${i.name} (#${i.id})` }));
  return (
    <Select
      id={props.id}
      mode={props.multiple ? 'multiple' : undefined}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={loading}
      disabled={props.disabled}
      placeholder={props.placeholder ?? 'None'}
      options={options}
      value={props.value ?? (props.multiple ? [] : undefined)}
      onChange={(v) => props.onChange?.((v as number | number[] | undefined) ?? (props.multiple ? [] : null))}
      style={{ minWidth: 260 }}
    />
  );
}

/** Help text of a field, managed by admins on the Tooltips page, shown as a (?) beside the label. */
export function useFieldHelp(): (key: string) => string | undefined {
  const { items } = useList('tooltips');
  const byKey = useMemo(() => {
    const map = new Map<string, string>();
    // Archived tooltips stay in the list (flagged) but are no longer shown.
    for (const i of items)
      if (!i.archived && typeof i.key === 'string' && typeof i.text === 'string' && i.text.trim())
        map.set(i.key, i.text);
    return map;
  }, [items]);
  return useCallback((key: string) => byKey.get(key), [byKey]);
}

/**
 * Labels of one kind's form: `label('floorCpm', 'Floor CPM')` is the label with the (?) of the
 * tooltip `<kind>.floorCpm` when an admin has written one.
 */
export function useHelpLabel(kind: string): (field: string, label: ReactNode) => ReactNode {
  const help = useFieldHelp();
  return useCallback(
    (field: string, label: ReactNode) => <HelpLabel label={label} help={help(`${kind}.${field}`)} />,
    [help, kind],
  );
}

export function HelpLabel({ label, help }: { label: ReactNode; help?: string }) {
  if (!help) return <>{label}</>;
  return (
    <Space size={4}>
      {label}
      <Tooltip title={help}>
        <QuestionCircleOutlined style={{ color: '#8c8c8c' }} aria-label="help" />
      </Tooltip>
    </Space>
  );
}

export function StatusTag({ status, archived }: { status: number; archived?: boolean }) {
  if (archived) return <Tag>Archived</Tag>;
  return status === 1 ? <Tag color="green">Active</Tag> : <Tag color="orange">Paused</Tag>;
}

export const usd = (micros: unknown) => (typeof micros === 'number' ? formatUsdMicros(micros) : '');

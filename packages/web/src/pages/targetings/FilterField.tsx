import { Segmented, Typography } from 'antd';
import { type ReactNode } from 'react';
import { type FILTER_MODES } from '@adplane/shared';

export type FilterMode = (typeof FILTER_MODES)[number];

/** A filter of the rules as the contract holds it: codes under `values`, list ids under `ids`. */
export type FilterValue<K extends 'values' | 'ids', T> = { mode: FilterMode } & Record<K, T[]>;

const MODES = [
  { value: 'include', label: 'Include' },
  { value: 'exclude', label: 'Exclude' },
];

/**
 * One targeting filter: an Include/Exclude switch over its picker. An empty filter matches any
 * traffic, whatever the switch says, and the hint under the switch says so.
 */
export function FilterField<K extends 'values' | 'ids', T>(props: {
  value?: FilterValue<K, T>;
  onChange?: (v: FilterValue<K, T>) => void;
  itemsKey: K;
  /** 'any country', 'any device': what an empty filter means. */
  anyText: string;
  testId: string;
  disabled?: boolean;
  children: (items: T[], setItems: (items: T[]) => void) => ReactNode;
}) {
  const mode = props.value?.mode ?? 'include';
  const items = (props.value?.[props.itemsKey] ?? []) as T[];
  const emit = (next: { mode?: FilterMode; items?: T[] }) =>
    props.onChange?.({ mode: next.mode ?? mode, [props.itemsKey]: next.items ?? items } as FilterValue<K, T>);
  return (
    <div data-testid={props.testId}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 12, marginBottom: 8 }}>
        <Segmented
          size="small"
          options={MODES}
          value={mode}
          disabled={props.disabled}
          onChange={(v) => emit({ mode: v as FilterMode })}
          data-testid={`${props.testId}-mode`}
        />
        <Typography.Text
          type={items.length === 0 ? 'secondary' : mode === 'exclude' ? 'danger' : 'success'}
          style={{ fontSize: 12 }}
        >
          {items.length === 0
            ? `Nothing picked: ${props.anyText}`
            : mode === 'exclude'
              ? `Blocks the ${items.length} picked`
              : `Only the ${items.length} picked`}
        </Typography.Text>
      </div>
      {props.children(items, (next) => emit({ items: next }))}
    </div>
  );
}

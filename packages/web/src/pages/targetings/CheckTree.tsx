import { Button, Input, Tag, Tree, Typography } from 'antd';
import { type Key, useMemo, useState } from 'react';
import { type CheckTreeNode } from './trees.js';

export interface Chip {
  value: string;
  label: string;
}

const CHIPS_SHOWN = 24;

/** Nodes whose title matches (a matching parent keeps all its children), with the parents to open. */
function filterTree(nodes: CheckTreeNode[], text: string): { nodes: CheckTreeNode[]; open: string[] } {
  const q = text.trim().toLowerCase();
  if (!q) return { nodes, open: [] };
  const open: string[] = [];
  const out = nodes.flatMap((n) => {
    if (n.title.toLowerCase().includes(q)) return [n];
    const children = (n.children ?? []).filter((c) => c.title.toLowerCase().includes(q));
    if (children.length === 0) return [];
    open.push(n.key);
    return [{ ...n, children }];
  });
  return { nodes: out, open };
}

/**
 * Checked and half-checked keys over the whole tree. The tree checks strictly (no conduction of its
 * own) so that a search that hides some children does not make their parent look fully checked.
 */
export function checkState(
  nodes: CheckTreeNode[],
  checkedKeys: readonly string[],
): { checked: string[]; halfChecked: string[] } {
  const checked = new Set(checkedKeys);
  const halfChecked: string[] = [];
  for (const n of nodes) {
    const children = n.children ?? [];
    if (children.length === 0) continue;
    const count = children.filter((c) => checked.has(c.key)).length;
    if (count === children.length) checked.add(n.key);
    else {
      checked.delete(n.key);
      if (count > 0) halfChecked.push(n.key);
    }
  }
  return { checked: [...checked], halfChecked };
}

const withTestIds = (nodes: CheckTreeNode[]): CheckTreeNode[] =>
  nodes.map((n) => ({ ...n, 'data-testid': `tree-node-${n.key}`, children: n.children && withTestIds(n.children) }));

/**
 * A two-level tree with checkboxes (IAB categories, regions), a search box that narrows it, and
 * the stored selection as chips under it. The caller turns a check of one node into stored values
 * (`onToggle`): a parent node stands for all its children, whatever the search shows.
 */
export function CheckTree(props: {
  treeData: CheckTreeNode[];
  checkedKeys: string[];
  onToggle: (key: string, checked: boolean) => void;
  onClear: () => void;
  chips: Chip[];
  onRemoveChip: (value: string) => void;
  searchPlaceholder: string;
  testId: string;
  disabled?: boolean;
  height?: number;
}) {
  const [search, setSearch] = useState('');
  const [expanded, setExpanded] = useState<Key[]>([]);
  const filtered = useMemo(() => filterTree(props.treeData, search), [props.treeData, search]);
  const treeData = useMemo(() => withTestIds(filtered.nodes), [filtered.nodes]);
  const searching = search.trim() !== '';
  const state = useMemo(() => checkState(props.treeData, props.checkedKeys), [props.treeData, props.checkedKeys]);

  return (
    <div data-testid={props.testId} style={{ border: '1px solid #f0f0f0', borderRadius: 8, padding: 8 }}>
      <div style={{ display: 'flex', gap: 8, marginBottom: 8 }}>
        <Input.Search
          allowClear
          size="small"
          placeholder={props.searchPlaceholder}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid={`${props.testId}-search`}
        />
        <Button size="small" onClick={() => setExpanded([])} disabled={searching || expanded.length === 0}>
          Collapse all
        </Button>
        <Button
          size="small"
          danger
          onClick={props.onClear}
          disabled={props.disabled || props.chips.length === 0}
          data-testid={`${props.testId}-clear`}
        >
          Clear
        </Button>
      </div>
      {treeData.length === 0 ? (
        <Typography.Text type="secondary">Nothing matches '{search}'</Typography.Text>
      ) : (
        <Tree
          checkable
          checkStrictly
          selectable={false}
          blockNode
          disabled={props.disabled}
          height={props.height ?? 280}
          treeData={treeData}
          checkedKeys={state}
          expandedKeys={searching ? filtered.open : expanded}
          onExpand={(keys) => !searching && setExpanded(keys)}
          onCheck={(_keys, info) => props.onToggle(String(info.node.key), info.checked)}
        />
      )}
      <div style={{ marginTop: 8, display: 'flex', flexWrap: 'wrap', gap: 4 }} data-testid={`${props.testId}-chips`}>
        {props.chips.length === 0 ? (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            Nothing picked
          </Typography.Text>
        ) : (
          <>
            {props.chips.slice(0, CHIPS_SHOWN).map((c) => (
              <Tag
                key={c.value}
                closable={!props.disabled}
                onClose={() => props.onRemoveChip(c.value)}
                style={{ marginInlineEnd: 0 }}
              >
                {c.label}
              </Tag>
            ))}
            {props.chips.length > CHIPS_SHOWN && <Tag>+{props.chips.length - CHIPS_SHOWN} more</Tag>}
          </>
        )}
      </div>
    </div>
  );
}

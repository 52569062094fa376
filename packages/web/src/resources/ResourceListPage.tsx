import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Input, Segmented, Space, Table, Tooltip, Typography } from 'antd';
import { type ColumnsType, type ColumnType, type TablePaginationConfig } from 'antd/es/table';
import { type SorterResult, type TableCurrentDataSource } from 'antd/es/table/interface';
import { type ComponentType, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import {
  bulkActionsOf,
  DEFAULT_PAGE_SIZE,
  formatTimezone,
  hasRowStats,
  PAGE_SIZES,
  type DeliveryState,
  type ResourceDef,
  ROW_STATS_PERIOD_LABELS,
  ROW_STATS_PERIODS,
  type RowStatsPeriod,
} from '@adplane/shared';
import { notifyLoadError } from '../errors/notify.js';
import { useUser } from '../auth/authContext.js';
import { useClock } from '../format/clock.js';
import { BulkBar } from './BulkBar.js';
import { ColumnChooser } from './ColumnChooser.js';
import { actionsWidth, COLUMN_WIDTHS, minTableWidth } from './columnWidths.js';
import { type DrawerState, ResourceDrawer, type ResourceFormProps } from './ResourceDrawer.js';
import { DeliveryStatusTag, useDeliveryStates, useSavedNotice } from './deliveryState.js';
import { inSentence } from './labels.js';
import {
  isMetricKey,
  type MetricColumn,
  metricColumns,
  type RowValues,
  sortByMetric,
  useRowStats,
} from './rowMetrics.js';
import { listPagination } from './pagination.js';
import { type ListParams, type ResourceRow, resourceApi } from './resourceApi.js';
import { Locked, RowActions, useRowCommands } from './RowActions.js';
import { useHiddenColumns, usePeriod } from './tablePrefs.js';
import './resources.css';

export interface ResourcePageProps {
  def: ResourceDef;
  /**
   * The kind's own columns (each with a `key`); name, numbers, status, updated and actions are added
   * around them. Widths from columnWidths.ts; a `label` names a column in the chooser when its title
   * is not a plain string (a short title with its full name on hover: shortTitle in cells.tsx).
   * A function makes them with the rows' delivery states (`stateOf`: undefined until they come).
   */
  columns: ListColumns | ((stateOf: (row: ResourceRow) => DeliveryState | undefined) => ListColumns);
  FormBody: ComponentType<ResourceFormProps>;
  defaults: () => Record<string, unknown>;
  toBody?: (values: Record<string, unknown>, row: ResourceRow | null) => Record<string, unknown>;
  toForm?: (row: ResourceRow) => Record<string, unknown>;
  /** Whether the caller may change rows (sub and adv users only read what is assigned to them). */
  canWrite?: boolean;
  /** Duplicating makes no sense for accounts (sign-in names are unique). */
  canDuplicate?: boolean;
  /** Extra actions per row (e.g. copy a channel's tag). */
  rowActions?: (row: ResourceRow) => ReactNode;
  /** How many icon buttons `rowActions` shows, for the width of the actions column (default 1). */
  rowActionCount?: number;
  intro?: ReactNode;
  drawerWidth?: number;
  /**
   * Actions the caller sees but may not use, each with the reason shown on hover (a non-super admin
   * on the demand accounts): the button stays in place, greyed, so people learn why.
   */
  locked?: { create?: string; archive?: string; delete?: string };
  /** Title of the name column, for kinds whose rows are named by something else (a tooltip's key). */
  nameTitle?: string;
  /**
   * Width of the name column when one of the kind's columns has none (a targeting's rules): that one
   * takes the room left. Otherwise the name does, at least NAME_MIN_WIDTH (columnWidths.ts). Names
   * longer than their column end in an ellipsis, whole on hover.
   */
  nameWidth?: number;
  /** What the drawer shows under a row's delivery state beyond its reasons (a supply deal's delivery against its caps). */
  stateDetail?: (row: ResourceRow, state: DeliveryState) => ReactNode;
  /** Column keys hidden until the user shows them with the column chooser. Default: `updatedAt`. */
  defaultHidden?: string[];
  /** Columns computed from the row numbers and the row itself (a campaign's pacing), after the numbers. */
  metricExtras?: (
    valueOf: (row: ResourceRow) => RowValues | undefined,
    period: RowStatsPeriod,
    loading: boolean,
  ) => MetricColumn[];
}

/** A list's column: antd's, with the name the column chooser shows for it when its title is not a string. */
export type ListColumns = (ColumnsType<ResourceRow>[number] & { label?: string })[];

const STATUS_FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'paused', label: 'Paused' },
  { value: 'archived', label: 'Archived' },
] as const;

const PERIOD_OPTIONS = ROW_STATS_PERIODS.map((p) => ({ value: p, label: ROW_STATS_PERIOD_LABELS[p] }));

/** Columns the chooser never hides: what names a row and what acts on it. */
const ALWAYS_SHOWN = new Set(['name', 'actions']);

function readParams(sp: URLSearchParams): ListParams {
  const size = Number(sp.get('pageSize'));
  const status = sp.get('status');
  return {
    page: Math.max(1, Number(sp.get('page')) || 1),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    sort: /^[a-zA-Z]+$/.test(sp.get('sort') ?? '') ? sp.get('sort')! : 'id',
    order: sp.get('order') === 'asc' ? 'asc' : 'desc',
    search: sp.get('search') ?? '',
    status: STATUS_FILTERS.some((s) => s.value === status) ? (status as ListParams['status']) : 'all',
  };
}

const titleText = (c: ColumnType<ResourceRow> & { label?: string }) =>
  c.label ?? (typeof c.title === 'string' ? c.title : String(c.key));

/**
 * The list page of every resource: server-side paging (10/20/50/100), sort, search and status
 * filter kept in the URL; each row's numbers for a chosen period (loaded after the rows, sorted on
 * the page); a column chooser remembered per user; bulk actions on selected rows; and the row
 * actions of the data contract (edit, duplicate, archive, restore, delete) with the server's reasons
 * when it refuses.
 */
export function ResourceListPage(props: ResourcePageProps) {
  const { def } = props;
  const user = useUser();
  const clock = useClock();
  const api = useMemo(() => resourceApi(def), [def]);
  const [sp, setSp] = useSearchParams();
  const params = readParams(sp);
  const [data, setData] = useState<{ items: ResourceRow[]; total: number }>({ items: [], total: 0 });
  const [loading, setLoading] = useState(true);
  const [drawer, setDrawer] = useState<DrawerState>({ open: false, id: null });
  const [searchText, setSearchText] = useState(params.search);
  const [selected, setSelected] = useState<number[]>([]);
  const [metricSort, setMetricSort] = useState<{ key: string; order: 'ascend' | 'descend' } | null>(null);
  const canWrite = props.canWrite ?? true;
  const locked = props.locked ?? {};
  const key = JSON.stringify(params);

  // Only the latest load may paint: a slow answer to an older query (before a search, or before a
  // duplicate) must not overwrite a newer one.
  const loadSeq = useRef(0);
  const load = useCallback(() => {
    const seq = ++loadSeq.current;
    setLoading(true);
    api
      .list(JSON.parse(key) as ListParams)
      .then((page) => {
        if (seq === loadSeq.current) setData({ items: page.items, total: page.total });
      })
      .catch((error: unknown) => {
        if (seq === loadSeq.current) notifyLoadError(error);
      })
      .finally(() => {
        if (seq === loadSeq.current) setLoading(false);
      });
  }, [api, key]);
  useEffect(load, [load]);
  // whether each row on screen serves (campaigns, creatives, tags, channels, deals), asked after the rows
  const deliveryStates = useDeliveryStates(def.kind, data.items);
  const savedNotice = useSavedNotice(def, load);
  // A selection belongs to the rows on screen: another page, search or filter starts afresh.
  useEffect(() => setSelected([]), [key]);
  // `?open=<id>` (a "Used by" link from another drawer) opens that row's drawer, once.
  const openId = Number(sp.get('open'));
  useEffect(() => {
    if (!Number.isSafeInteger(openId) || openId <= 0) return;
    setDrawer({ open: true, id: openId });
    const rest = new URLSearchParams(sp);
    rest.delete('open');
    setSp(rest, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when another row is asked for
  }, [openId]);

  // The numbers beside the rows: asked once the rows are known, never holding the list back.
  const statsKind = hasRowStats(def.kind) && user.type !== 'sdk' ? def.kind : null;
  const [period, setPeriod] = usePeriod(user.id);
  const ids = useMemo(() => data.items.map((r) => r.id), [data.items]);
  const { stats, loading: statsLoading, failed: statsFailed } = useRowStats(statsKind, ids, period);
  const current = stats && stats.period === period ? stats : null;
  // pending until they arrive; a failure is said in each number's place (never as a 0)
  const statsPending = statsFailed === null && (statsLoading || current === null);
  const valueOf = useCallback((row: ResourceRow) => current?.rows[String(row.id)], [current]);
  const metricCols: MetricColumn[] = useMemo(
    () =>
      statsKind
        ? [
            ...metricColumns(statsKind, valueOf, statsPending, statsFailed),
            ...(props.metricExtras?.(valueOf, period, statsPending) ?? []),
          ]
        : [],
    // props.metricExtras is a page's inline function: its output depends only on these.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [statsKind, valueOf, statsPending, statsFailed, period],
  );

  const defaultHidden = props.defaultHidden ?? ['updatedAt'];
  const [hidden, setHidden] = useHiddenColumns(user.id, def.kind, defaultHidden);

  const update = (changes: Partial<ListParams>) => {
    const next = { ...params, ...changes };
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v !== '' && v !== undefined) out.set(k, String(v));
    setSp(out, { replace: true });
  };

  const commands = useRowCommands(def, api, load);
  const serverOrder = (k: string) =>
    !metricSort && params.sort === k ? (params.order === 'asc' ? ('ascend' as const) : ('descend' as const)) : null;

  // The name takes the room the other columns leave, unless the kind has a wide column of its own
  // (a targeting's rules, a tooltip's text) that needs it more: then it keeps `nameWidth`.
  const kindColumns =
    typeof props.columns === 'function' ? props.columns((row) => deliveryStates?.get(row.id)) : props.columns;
  const nameFlexes = !kindColumns.some((c) => c.width === undefined);
  const bulk = canWrite && bulkActionsOf(def).length > 0;
  const allColumns: (ColumnType<ResourceRow> & { label?: string })[] = [
    { title: 'ID', dataIndex: 'id', key: 'id', width: COLUMN_WIDTHS.id, sorter: true, sortOrder: serverOrder('id') },
    {
      title: props.nameTitle ?? 'Name',
      dataIndex: 'name',
      key: 'name',
      width: nameFlexes ? undefined : (props.nameWidth ?? 200),
      ellipsis: { showTitle: false },
      sorter: true,
      sortOrder: serverOrder('name'),
      render: (name: string, row) => (
        // An href makes it a real link (keyboard focus, the link role); the drawer opens in place.
        <Tooltip title={name} placement="topLeft" mouseEnterDelay={0.5}>
          <Typography.Link
            href="#"
            className="cell-ellipsis"
            onClick={(e) => {
              e.preventDefault();
              setDrawer({ open: true, id: row.id });
            }}
            data-testid={`row-open-${row.id}`}
          >
            {name}
          </Typography.Link>
        </Tooltip>
      ),
    },
    ...kindColumns.map((c) => ({ ...c, sortOrder: 'key' in c && c.sorter ? serverOrder(String(c.key)) : null })),
    ...metricCols.map((c) => ({ ...c, sortOrder: metricSort?.key === c.key ? metricSort.order : null })),
    {
      title: 'Status',
      dataIndex: 'status',
      key: 'status',
      width: COLUMN_WIDTHS.status,
      sorter: true,
      sortOrder: serverOrder('status'),
      render: (_: number, row) => <DeliveryStatusTag row={row} state={deliveryStates?.get(row.id)} />,
    },
    {
      title: 'Updated',
      dataIndex: 'updatedAt',
      key: 'updatedAt',
      width: COLUMN_WIDTHS.updated,
      sorter: true,
      sortOrder: serverOrder('updatedAt'),
      render: (v: string, row) => <span data-testid={`row-updated-${row.id}`}>{clock(v)}</span>,
    },
    {
      title: '',
      key: 'actions',
      fixed: 'right',
      // Edit (or view) and the More menu, and the kind's own actions (copy a tag, test it...).
      width: actionsWidth((canWrite ? 2 : 1) + (props.rowActionCount ?? (props.rowActions ? 1 : 0))),
      render: (_: unknown, row) => (
        <RowActions
          api={api}
          row={row}
          canWrite={canWrite}
          canDuplicate={props.canDuplicate ?? true}
          locked={locked}
          extra={props.rowActions?.(row)}
          onOpen={() => setDrawer({ open: true, id: row.id })}
          commands={commands}
        />
      ),
    },
  ];
  const hiddenSet = new Set(hidden);
  const columns = allColumns.filter((c) => ALWAYS_SHOWN.has(String(c.key)) || !hiddenSet.has(String(c.key)));
  // Scrolls sideways only below the columns' smallest widths; a wider window widens the name.
  const scrollX = minTableWidth(columns, bulk);

  const rows = useMemo(() => {
    if (!metricSort) return data.items;
    return sortByMetric(
      data.items,
      metricCols.find((c) => c.key === metricSort.key),
      metricSort.order,
    );
  }, [data.items, metricSort, metricCols]);

  const onTableChange = (
    pagination: TablePaginationConfig,
    _f: unknown,
    sorter: SorterResult<ResourceRow> | SorterResult<ResourceRow>[],
    extra: TableCurrentDataSource<ResourceRow>,
  ) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const sortKey = s?.order ? String(s.columnKey ?? s.field ?? 'id') : null;
    if (extra.action === 'sort' && sortKey && isMetricKey(sortKey)) {
      // The numbers sort the rows on the page; the server's order stays as it was.
      setMetricSort({ key: sortKey, order: s.order! });
      return;
    }
    if (extra.action === 'sort') setMetricSort(null);
    const bySort =
      extra.action === 'sort'
        ? { sort: sortKey ?? 'id', order: s?.order === 'ascend' ? ('asc' as const) : ('desc' as const) }
        : {};
    update({ page: pagination.current ?? 1, pageSize: pagination.pageSize ?? DEFAULT_PAGE_SIZE, ...bySort });
  };

  const chooser = allColumns
    .filter((c) => !ALWAYS_SHOWN.has(String(c.key)))
    .map((c) => ({ key: String(c.key), label: titleText(c) }));

  return (
    <Card
      title={def.plural}
      className="resource-page page-card"
      data-testid={`page-${def.kind}`}
      extra={
        canWrite &&
        (locked.create ? (
          <Locked reason={locked.create}>
            <Button type="primary" icon={<PlusOutlined />} disabled data-testid="resource-new">
              New {inSentence(def.label)}
            </Button>
          </Locked>
        ) : (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setDrawer({ open: true, id: null })}
            data-testid="resource-new"
          >
            New {inSentence(def.label)}
          </Button>
        ))
      }
    >
      {props.intro}
      <div className="resource-toolbar">
        <Space wrap size={8}>
          <Input.Search
            allowClear
            placeholder="Search by name, id or uid"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            onSearch={(v) => update({ search: v.trim(), page: 1 })}
            style={{ width: 280 }}
            data-testid="resource-search"
          />
          <Segmented
            options={[...STATUS_FILTERS]}
            value={params.status}
            onChange={(v) => update({ status: v as ListParams['status'], page: 1 })}
          />
        </Space>
        <Space wrap size={8}>
          {statsKind && (
            <span className="period-select">
              <Segmented
                options={PERIOD_OPTIONS}
                value={period}
                onChange={(v) => setPeriod(v as RowStatsPeriod)}
                data-testid="period-select"
              />
              <Typography.Text
                type={statsFailed ? 'danger' : 'secondary'}
                className="period-range"
                data-testid="period-range"
                title={statsFailed ?? undefined}
              >
                {statsFailed
                  ? 'The numbers could not be loaded'
                  : current
                    ? `${current.startDate === current.endDate ? current.startDate : `${current.startDate} – ${current.endDate}`}, ${formatTimezone(current.timezone)}`
                    : ' '}
              </Typography.Text>
            </span>
          )}
          <ColumnChooser columns={chooser} hidden={hidden} onChange={setHidden} defaults={defaultHidden} />
        </Space>
      </div>
      {bulk && (
        <BulkBar
          def={def}
          api={api}
          selected={selected}
          archivedView={params.status === 'archived'}
          onClear={() => setSelected([])}
          onDone={() => {
            setSelected([]);
            load();
          }}
        />
      )}
      <Table<ResourceRow>
        rowKey="id"
        size="small"
        className="resource-table"
        loading={loading}
        columns={columns}
        dataSource={rows}
        onChange={onTableChange}
        scroll={{ x: scrollX }}
        rowSelection={
          bulk
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys.map(Number)),
                columnWidth: COLUMN_WIDTHS.select,
              }
            : undefined
        }
        onRow={(row) => ({ 'data-testid': `row-${row.id}` }) as React.HTMLAttributes<HTMLElement>}
        pagination={listPagination({ current: params.page, pageSize: params.pageSize, total: data.total })}
        locale={{
          emptyText:
            params.search || params.status !== 'all'
              ? 'Nothing matches these filters'
              : `No ${inSentence(def.plural)} yet`,
        }}
      />
      <ResourceDrawer
        def={def}
        api={api}
        state={drawer}
        readOnly={!canWrite || Boolean(drawer.id !== null && data.items.find((r) => r.id === drawer.id)?.archived)}
        FormBody={props.FormBody}
        defaults={props.defaults}
        toBody={props.toBody}
        toForm={props.toForm}
        stateDetail={props.stateDetail}
        width={props.drawerWidth}
        onClose={() => setDrawer({ open: false, id: null })}
        onSaved={(row) => {
          savedNotice.notify(row);
          setDrawer({ open: false, id: null });
          load();
        }}
      />
      {savedNotice.element}
    </Card>
  );
}

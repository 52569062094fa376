import { CopyOutlined, DeleteOutlined, EditOutlined, EyeOutlined, InboxOutlined, PlusOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Button, Card, Input, Popconfirm, Segmented, Space, Table, Tooltip, Typography } from 'antd';
import { type ColumnsType, type TablePaginationConfig } from 'antd/es/table';
import { type SorterResult } from 'antd/es/table/interface';
import { type ComponentType, type CSSProperties, type ReactElement, type ReactNode, cloneElement, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, type ResourceDef, formatDateTime } from '@adplane/shared';
import { notifyLoadError, notifySaveError } from '../errors/notify.js';
import { useUser } from '../auth/authContext.js';
import { type DrawerState, ResourceDrawer, type ResourceFormProps } from './ResourceDrawer.js';
import { StatusTag } from './fields.js';
import { inSentence } from './labels.js';
import { type ListParams, type ResourceRow, resourceApi } from './resourceApi.js';

export interface ResourcePageProps {
  def: ResourceDef;
  /** The kind's own columns; name, status, updated and actions are added around them. */
  columns: ColumnsType<ResourceRow>;
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
  intro?: ReactNode;
  drawerWidth?: number;
  /**
   * Actions the caller sees but may not use, each with the reason shown on hover (a non-super admin
   * on the demand accounts): the button stays in place, greyed, so people learn why.
   */
  locked?: { create?: string; archive?: string; delete?: string };
  /** Title of the name column, for kinds whose rows are named by something else (a tooltip's key). */
  nameTitle?: string;
  /** Width of the name column, so that long names keep room on a page with many columns. */
  nameWidth?: number;
}

const STATUS_FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'paused', label: 'Paused' },
  { value: 'archived', label: 'Archived' },
] as const;

/** A disabled button gets no hover events, so the reason it is greyed sits on a wrapper around it. */
function Locked({ reason, children }: { reason: string; children: ReactElement<{ style?: CSSProperties }> }) {
  return (
    <Tooltip title={reason}>
      <span style={{ display: 'inline-block', cursor: 'not-allowed' }} data-locked={reason}>
        {cloneElement(children, { style: { ...children.props.style, pointerEvents: 'none' } })}
      </span>
    </Tooltip>
  );
}

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

/**
 * The list page of every resource: server-side paging (10/20/50/100), sort, search and status
 * filter kept in the URL, and the row actions of the data contract (edit, duplicate, archive,
 * restore, delete) with the server's reasons when it refuses.
 */
export function ResourceListPage(props: ResourcePageProps) {
  const { def } = props;
  const user = useUser();
  const { message, modal } = App.useApp();
  const api = useMemo(() => resourceApi(def), [def]);
  const [sp, setSp] = useSearchParams();
  const params = readParams(sp);
  const [data, setData] = useState<{ items: ResourceRow[]; total: number }>({ items: [], total: 0 });
  const [loading, setLoading] = useState(true);
  const [drawer, setDrawer] = useState<DrawerState>({ open: false, id: null });
  const [searchText, setSearchText] = useState(params.search);
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

  const update = (changes: Partial<ListParams>) => {
    const next = { ...params, ...changes };
    const out = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v !== '' && v !== undefined) out.set(k, String(v));
    setSp(out, { replace: true });
  };

  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      message.success(what);
      load();
    } catch (error) {
      notifySaveError(error);
    }
  };

  const showUsageThen = async (row: ResourceRow, verb: 'archive' | 'delete') => {
    try {
      const used = (await api.usage(row.id)).filter((u) => verb === 'delete' || !u.archived);
      if (used.length === 0) return true;
      modal.warning({
        title: `${def.label} '${row.name}' is in use`,
        content: (
          <div>
            <p>Remove it from these first:</p>
            <ul>
              {used.slice(0, 10).map((u) => (
                <li key={`${u.kind}-${u.id}`}>
                  {u.label} '{u.name}' ({u.field}){u.archived ? ' (archived)' : ''}
                </li>
              ))}
            </ul>
          </div>
        ),
      });
      return false;
    } catch (error) {
      notifyLoadError(error);
      return false;
    }
  };

  const columns: ColumnsType<ResourceRow> = [
    { title: 'ID', dataIndex: 'id', key: 'id', width: 80, sorter: true, sortOrder: params.sort === 'id' ? (params.order === 'asc' ? 'ascend' : 'descend') : null },
    {
      title: props.nameTitle ?? 'Name',
      dataIndex: 'name',
      width: props.nameWidth,
      key: 'name',
      sorter: true,
      sortOrder: params.sort === 'name' ? (params.order === 'asc' ? 'ascend' : 'descend') : null,
      render: (name: string, row) => (
        // An href makes it a real link (keyboard focus, the link role); the drawer opens in place.
        <Typography.Link
          href="#"
          onClick={(e) => {
            e.preventDefault();
            setDrawer({ open: true, id: row.id });
          }}
          data-testid={`row-open-${row.id}`}
        >
          {name}
        </Typography.Link>
      ),
    },
    ...props.columns.map((c) => ({
      ...c,
      sortOrder: 'key' in c && c.sorter && params.sort === c.key ? (params.order === 'asc' ? ('ascend' as const) : ('descend' as const)) : null,
    })),
    { title: 'Status', dataIndex: 'status', key: 'status', width: 100, sorter: true, render: (s: number, row) => <StatusTag status={s} archived={row.archived} /> },
    {
      title: 'Updated',
      dataIndex: 'updatedAt',
      key: 'updatedAt',
      width: 150,
      sorter: true,
      render: (v: string) => formatDateTime(v, user.timezone),
    },
    {
      title: '',
      key: 'actions',
      width: canWrite ? 190 : 60,
      render: (_: unknown, row) => (
        <Space size={2} onClick={(e) => e.stopPropagation()}>
          {props.rowActions?.(row)}
          <Tooltip title={canWrite && !row.archived ? 'Edit' : 'View'}>
            <Button type="text" size="small" icon={canWrite && !row.archived ? <EditOutlined /> : <EyeOutlined />} onClick={() => setDrawer({ open: true, id: row.id })} aria-label="edit" />
          </Tooltip>
          {canWrite && (props.canDuplicate ?? true) && (
            <Tooltip title="Duplicate (the copy starts paused)">
              <Button type="text" size="small" icon={<CopyOutlined />} aria-label="duplicate" data-testid={`row-duplicate-${row.id}`} onClick={() => void act('Duplicated', () => api.duplicate(row.id))} />
            </Tooltip>
          )}
          {canWrite && locked.archive && (
            <Locked reason={locked.archive}>
              <Button type="text" size="small" icon={row.archived ? <UndoOutlined /> : <InboxOutlined />} aria-label={row.archived ? 'restore' : 'archive'} disabled data-testid={`row-archive-${row.id}`} />
            </Locked>
          )}
          {canWrite && !locked.archive && !row.archived && (
            <Tooltip title="Archive (keeps its history in reports)">
              <Button
                type="text"
                size="small"
                icon={<InboxOutlined />}
                aria-label="archive"
                data-testid={`row-archive-${row.id}`}
                onClick={() => void showUsageThen(row, 'archive').then((ok) => (ok ? act('Archived', () => api.archive(row.id)) : undefined))}
              />
            </Tooltip>
          )}
          {canWrite && !locked.archive && row.archived && (
            <Tooltip title="Restore">
              <Button type="text" size="small" icon={<UndoOutlined />} aria-label="restore" onClick={() => void act('Restored', () => api.restore(row.id))} />
            </Tooltip>
          )}
          {canWrite && locked.delete && (
            <Locked reason={locked.delete}>
              <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label="delete" disabled data-testid={`row-delete-${row.id}`} />
            </Locked>
          )}
          {canWrite && !locked.delete && (
            <Popconfirm
              title={`Delete ${inSentence(def.label)} '${row.name}'?`}
              description="Deleting is permanent and its name disappears from reports. Archive keeps it instead."
              okText="Delete"
              okButtonProps={{ danger: true }}
              onConfirm={() => showUsageThen(row, 'delete').then((ok) => (ok ? act('Deleted', () => api.remove(row.id)) : undefined))}
            >
              <Button type="text" size="small" danger icon={<DeleteOutlined />} aria-label="delete" data-testid={`row-delete-${row.id}`} />
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  const onTableChange = (pagination: TablePaginationConfig, _f: unknown, sorter: SorterResult<ResourceRow> | SorterResult<ResourceRow>[]) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const sortKey = s?.order ? String(s.columnKey ?? s.field ?? 'id') : 'id';
    update({
      page: pagination.current ?? 1,
      pageSize: pagination.pageSize ?? DEFAULT_PAGE_SIZE,
      sort: sortKey,
      order: s?.order === 'ascend' ? 'asc' : 'desc',
    });
  };

  return (
    <Card
      title={def.plural}
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
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setDrawer({ open: true, id: null })} data-testid="resource-new">
            New {inSentence(def.label)}
          </Button>
        ))
      }
    >
      {props.intro}
      <Space style={{ marginBottom: 12 }} wrap>
        <Input.Search
          allowClear
          placeholder="Search by name, id or uid"
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          onSearch={(v) => update({ search: v.trim(), page: 1 })}
          style={{ width: 300 }}
          data-testid="resource-search"
        />
        <Segmented options={[...STATUS_FILTERS]} value={params.status} onChange={(v) => update({ status: v as ListParams['status'], page: 1 })} />
      </Space>
      <Table<ResourceRow>
        rowKey="id"
        size="middle"
        loading={loading}
        columns={columns}
        dataSource={data.items}
        onChange={onTableChange}
        onRow={(row) => ({ 'data-testid': `row-${row.id}` }) as React.HTMLAttributes<HTMLElement>}
        pagination={{
          current: params.page,
          pageSize: params.pageSize,
          total: data.total,
          showSizeChanger: true,
          pageSizeOptions: PAGE_SIZES.map(String),
          showTotal: (total, [from, to]) => `${from}-${to} of ${total}`,
        }}
        locale={{ emptyText: params.search || params.status !== 'all' ? 'Nothing matches these filters' : `No ${inSentence(def.plural)} yet` }}
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
        width={props.drawerWidth}
        onClose={() => setDrawer({ open: false, id: null })}
        onSaved={() => {
          message.success('Saved');
          setDrawer({ open: false, id: null });
          load();
        }}
      />
    </Card>
  );
}

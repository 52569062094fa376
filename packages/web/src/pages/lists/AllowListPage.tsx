import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { RESOURCES, type ListKind, parseListText } from '@adplane/shared';
import { findListItem, useList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { LIST_TEXT, makeListForm } from './ListForm.js';

/** One FormBody per kind, made once so that the drawer keeps the same component between renders. */
const FORMS = {
  applists: makeListForm('applists'),
  publists: makeListForm('publists'),
  crelists: makeListForm('crelists'),
  iplists: makeListForm('iplists'),
};

const INTRO: Record<ListKind, string> = {
  applists: 'Apps to allow or block: a targeting includes or excludes these lists.',
  publists: 'Publishers to allow or block: a targeting includes or excludes these lists.',
  crelists: 'Creatives and advertiser domains to allow or block: a targeting includes or excludes these lists.',
  iplists:
    "Viewers' addresses to allow or block (an office, a household, a partner's servers): a targeting includes or excludes these lists.",
};

const itemsOf = (row: ResourceRow): string[] => (Array.isArray(row.items) ? (row.items as string[]) : []);

export function listToForm(row: ResourceRow): Record<string, unknown> {
  return { name: row.name, status: row.status, items: itemsOf(row).join('\n') };
}

/** The textarea's lines become the `items` array of the contract (normalised and deduplicated). */
export function listToBody(kind: ListKind, values: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: values.name,
    status: values.status,
    items: parseListText(kind, String(values.items ?? '')).items,
  };
  if (values.tenantId !== undefined && values.tenantId !== null) body.tenantId = values.tenantId;
  return body;
}

/** The demand account a row belongs to, for admins (who see every account's lists). */
function DemandName({ id }: { id: number | null | undefined }) {
  const { items } = useList('demands');
  return <>{items.find((d) => Number(d.id) === id)?.name ?? (id ? `#${id}` : '')}</>;
}

/** A creative list's first entries: a creative id shown as the creative's name (its id on hover), a domain as it is. */
export function CreativeEntries({ items }: { items: string[] }) {
  useList('creatives'); // loads the list, and renders again when it comes
  return (
    <>
      {items.map((item, i) => {
        const creative = findListItem('creatives', item);
        return (
          <span key={item}>
            {i > 0 ? ', ' : ''}
            {creative ? <span title={`creative ${item}`}>{creative.name}</span> : item}
          </span>
        );
      })}
    </>
  );
}

/** /applists, /publists, /crelists, /iplists: the allow/block lists of one kind. */
export function AllowListPage({ kind }: { kind: ListKind }) {
  const def = RESOURCES[kind];
  const user = useUser();
  const isAdmin = user.type === 'admin';

  const columns = useMemo<ColumnsType<ResourceRow>>(
    () => [
      ...(isAdmin
        ? [
            {
              title: 'Demand account',
              key: 'tenantId',
              width: 180,
              render: (_: unknown, row: ResourceRow) => <DemandName id={row.tenantId} />,
            },
          ]
        : []),
      {
        title: 'Entries',
        key: 'entries',
        width: 100,
        align: 'right' as const,
        render: (_: unknown, row: ResourceRow) => (
          <span data-testid={`list-entries-${row.id}`}>{itemsOf(row).length.toLocaleString('en-US')}</span>
        ),
      },
      {
        title: `First ${LIST_TEXT[kind].entries.toLowerCase()}`,
        key: 'sample',
        ellipsis: true,
        render: (_: unknown, row: ResourceRow) => {
          const items = itemsOf(row);
          return items.length ? (
            <Typography.Text type="secondary">
              {kind === 'crelists' ? <CreativeEntries items={items.slice(0, 3)} /> : items.slice(0, 3).join(', ')}
              {items.length > 3 ? ', …' : ''}
            </Typography.Text>
          ) : (
            <Typography.Text type="secondary">Empty</Typography.Text>
          );
        },
      },
    ],
    [isAdmin, kind],
  );

  return (
    <ResourceListPage
      def={def}
      columns={columns}
      FormBody={FORMS[kind]}
      defaults={() => ({ name: '', status: 1, items: '' })}
      toForm={listToForm}
      toBody={(values) => listToBody(kind, values)}
      nameWidth={280}
      intro={<Typography.Paragraph type="secondary">{INTRO[kind]}</Typography.Paragraph>}
    />
  );
}

import { Empty, Skeleton, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { referrersOf, RESOURCES, type ResourceDef, type UsedByGroup } from '@adplane/shared';
import { api } from '../api/client.js';
import { errorText } from '../errors/messages.js';

/** Kinds others reference (a tag by channels, a targeting or list by its users, a deal by campaigns): their drawers show "Used by". */
export const showsUsedBy = (def: ResourceDef): boolean => referrersOf(def.kind).length > 0;

/** Where a using row opens: its list page, with its drawer open. */
export const usedByHref = (kind: keyof typeof RESOURCES, id: number): string => `${RESOURCES[kind].route}?open=${id}`;

/** "Channels (2): Demo CTV, Web Outstream" style summary of an answer (tests and screen readers). */
export function usedBySummary(groups: readonly UsedByGroup[]): string {
  return groups.length
    ? groups.map((g) => `${g.plural} (${g.items.length}): ${g.items.map((i) => i.name).join(', ')}`).join('; ')
    : 'Not used';
}

/**
 * The "Used by" section of a drawer (GET {api}/:id/usedBy): the rows that use this one, grouped by
 * kind, each a link that opens it; paused and archived users are marked. Only rows the user may see.
 */
export function UsedBy({ def, id }: { def: ResourceDef; id: number }) {
  const [groups, setGroups] = useState<UsedByGroup[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let active = true;
    setGroups(null);
    setError(null);
    api
      .get<UsedByGroup[]>(`${def.api}/${id}/usedBy`, { silent: true })
      .then((g) => active && setGroups(g))
      .catch((e: unknown) => active && setError(errorText(e)));
    return () => {
      active = false;
    };
  }, [def.api, id]);

  return (
    <section className="used-by" aria-label="Used by" data-testid="used-by" style={{ marginTop: 20 }}>
      <h4 className="form-section-title">Used by</h4>
      {error ? (
        <Typography.Text type="danger">Could not load who uses it: {error}</Typography.Text>
      ) : groups === null ? (
        <Skeleton active paragraph={{ rows: 1 }} title={false} />
      ) : groups.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={`No ${referrersOf(def.kind)
            .map((r) => r.from.plural.toLowerCase())
            .filter((v, i, a) => a.indexOf(v) === i)
            .join(' or ')} use this ${def.label.toLowerCase()}`}
          data-testid="used-by-none"
        />
      ) : (
        groups.map((g) => (
          <div key={g.kind} style={{ marginBottom: 8 }} data-testid={`used-by-${g.kind}`}>
            <Typography.Text type="secondary">
              {g.plural} ({g.items.length})
            </Typography.Text>
            <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6, marginTop: 4 }}>
              {g.items.map((item) => (
                <Link
                  key={item.id}
                  to={usedByHref(item.kind, item.id)}
                  data-testid={`used-by-link-${item.kind}-${item.id}`}
                  title={`${g.label} #${item.id} (${item.fields.join(', ')})`}
                >
                  <Tag
                    color={item.archived ? undefined : item.status ? 'blue' : 'default'}
                    style={{ marginInlineEnd: 0, cursor: 'pointer' }}
                  >
                    {item.name}
                    {item.archived ? ' · archived' : item.status ? '' : ' · paused'}
                  </Tag>
                </Link>
              ))}
            </div>
          </div>
        ))
      )}
    </section>
  );
}

import { Tooltip, Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { useMemo } from 'react';
import { RESOURCES, TargetingRules, emptyTargetingRules } from '@adplane/shared';
import { type ListItem, useList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { describeTargeting, summarizeTargeting, type RulesLike } from './summary.js';
import { TargetingForm } from './TargetingForm.js';

const def = RESOURCES.targetings;

/** A row's rules with every filter present (rows written before a filter existed read as "any"). */
export function rulesOf(row: Record<string, unknown> | null | undefined): TargetingRules {
  const parsed = TargetingRules.safeParse(row?.rules ?? {});
  return parsed.success ? parsed.data : { ...emptyTargetingRules(), ...(row?.rules as Partial<TargetingRules>) };
}

export function targetingToForm(row: ResourceRow): Record<string, unknown> {
  return { name: row.name, status: row.status, rules: rulesOf(row) };
}

export function targetingToBody(values: Record<string, unknown>, row: ResourceRow | null): Record<string, unknown> {
  const rules = { ...emptyTargetingRules(), ...(row ? (row.rules as object) : {}), ...(values.rules as object) };
  return { name: values.name, status: values.status, rules };
}

const byId = (items: ListItem[]) => new Map(items.map((i) => [Number(i.id), i.name]));

/** /targetings: reusable targeting profiles that tags, channels, campaigns and exchanges point at. */
export default function TargetingsPage() {
  const user = useUser();
  const appLists = useList('appLists').items;
  const pubLists = useList('pubLists').items;
  const creLists = useList('creLists').items;
  const ipLists = useList('ipLists').items;

  const columns = useMemo<ColumnsType<ResourceRow>>(() => {
    const names = {
      appLists: byId(appLists),
      pubLists: byId(pubLists),
      creLists: byId(creLists),
      ipLists: byId(ipLists),
    };
    return [
      {
        title: 'Rules',
        key: 'rules',
        ellipsis: { showTitle: false },
        render: (_: unknown, row) => {
          const rules = row.rules as RulesLike | undefined;
          const lines = describeTargeting(rules, (kind, id) => `${names[kind].get(id) ?? 'List'} (#${id})`);
          return (
            <Tooltip
              title={lines.length ? lines.map((l) => <div key={l}>{l}</div>) : 'No rule: matches any traffic'}
              styles={{ root: { maxWidth: 560 } }}
            >
              <Typography.Text data-testid={`targeting-rules-${row.id}`} type={lines.length ? undefined : 'secondary'}>
                {summarizeTargeting(rules)}
              </Typography.Text>
            </Tooltip>
          );
        },
      },
    ];
  }, [appLists, pubLists, creLists, ipLists]);

  return (
    <ResourceListPage
      def={def}
      columns={columns}
      FormBody={TargetingForm}
      defaults={() => {
        const rules = emptyTargetingRules();
        return {
          name: '',
          status: 1,
          rules: { ...rules, dayParting: { ...rules.dayParting, timezone: user.timezone } },
        };
      }}
      toForm={targetingToForm}
      toBody={targetingToBody}
      drawerWidth={880}
      nameWidth={250}
      intro={
        <Typography.Paragraph type="secondary">
          Reusable sets of rules (where, on what, which content, when) that tags, channels, campaigns and ad exchanges
          point at. A rule left empty matches any traffic.
        </Typography.Paragraph>
      }
    />
  );
}

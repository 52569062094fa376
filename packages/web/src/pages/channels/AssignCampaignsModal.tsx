import { Alert, App, Input, Modal, Table, Tag, Tooltip, Typography } from 'antd';
import { useMemo, useState } from 'react';
import {
  CHANNEL_SCOPE_WORDS,
  type ChannelCampaignsAnswer,
  channelCampaignsPath,
  type ChannelScope,
  campaignRunsOn,
} from '@adplane/shared';
import { api } from '../../api/client.js';
import { type ListItem } from '../../api/lists.js';
import { notifySaveError } from '../../errors/notify.js';

/** A live campaign of the account as the modal lists it. */
interface Row {
  id: number;
  name: string;
  paused: boolean;
  scope: ChannelScope;
  channelCount: number;
  /** Runs on the channel now. */
  runs: boolean;
  /** Runs on this channel alone: taking it off would leave it running nowhere (the server refuses). */
  onlyHere: boolean;
}

function rowsOf(campaigns: readonly ListItem[], channelId: number): Row[] {
  return campaigns
    .filter((c) => c.archived !== true)
    .map((c) => {
      const scope = (c.channelScope as ChannelScope | undefined) ?? 'all';
      const ids = (c.channelIds as number[] | undefined) ?? [];
      return {
        id: Number(c.id),
        name: c.name,
        paused: c.status === 0,
        scope,
        channelCount: ids.length,
        runs: campaignRunsOn(scope, ids, channelId),
        onlyHere: scope === 'include' && ids.length === 1 && ids[0] === channelId,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}

/** A campaign's assignment in words: "all channels", "only some (2)", "all but some (1)". */
function scopeWords(row: Row): string {
  if (row.onlyHere) return 'only this channel';
  return row.scope === 'all' ? CHANNEL_SCOPE_WORDS.all : `${CHANNEL_SCOPE_WORDS[row.scope]} (${row.channelCount})`;
}

/**
 * "Assign campaigns" of a channel: the account's live campaigns, searchable, checked where they run on
 * the channel now; saving sends the checked set (PUT .../channels/:id/campaigns), and the server
 * changes each campaign's own assignment as little as it takes. A campaign that runs on this channel
 * alone stays checked: left out it would run nowhere, so the user pauses it instead.
 */
export function AssignCampaignsModal({
  channelId,
  channelName,
  campaigns,
  onClose,
  onSaved,
}: {
  channelId: number;
  channelName: string;
  /** The account's campaigns (the shared list's items). */
  campaigns: readonly ListItem[];
  onClose: () => void;
  onSaved: (answer: ChannelCampaignsAnswer) => void;
}) {
  const { message } = App.useApp();
  const rows = useMemo(() => rowsOf(campaigns, channelId), [campaigns, channelId]);
  const [checked, setChecked] = useState<number[]>(() => rows.filter((r) => r.runs).map((r) => r.id));
  const [search, setSearch] = useState('');
  const [saving, setSaving] = useState(false);
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return needle ? rows.filter((r) => r.name.toLowerCase().includes(needle) || String(r.id) === needle) : rows;
  }, [rows, search]);
  const wanted = new Set(checked);
  const joining = rows.filter((r) => !r.runs && wanted.has(r.id)).length;
  const leaving = rows.filter((r) => r.runs && !wanted.has(r.id)).length;

  const save = async () => {
    setSaving(true);
    try {
      const answer = await api.put<ChannelCampaignsAnswer>(channelCampaignsPath(channelId), {
        campaignIds: rows.filter((r) => wanted.has(r.id)).map((r) => r.id),
      });
      const n = answer.changed.length;
      void message.success(n === 0 ? 'Nothing to change' : `${n === 1 ? '1 campaign' : `${n} campaigns`} saved`);
      onSaved(answer);
    } catch (e) {
      notifySaveError(e);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open
      width={720}
      title={`Campaigns on ${channelName}`}
      okText="Save"
      okButtonProps={{ loading: saving, disabled: joining + leaving === 0, 'data-testid': 'assign-campaigns-save' }}
      onOk={() => void save()}
      onCancel={onClose}
      destroyOnHidden
    >
      <div data-testid="assign-campaigns">
        <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }}>
          Check the campaigns that run on this channel. Saving changes only this channel in each campaign's own
          assignment: a campaign of all channels left out runs on all but this one.
        </Typography.Paragraph>
        <Input.Search
          allowClear
          placeholder="Search campaigns by name or id"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          style={{ marginBottom: 12 }}
          data-testid="assign-campaigns-search"
        />
        <Table<Row>
          size="small"
          rowKey="id"
          dataSource={shown}
          pagination={false}
          scroll={{ y: 360 }}
          locale={{ emptyText: rows.length ? 'No campaign matches the search' : 'The account has no campaign yet' }}
          rowSelection={{
            selectedRowKeys: checked,
            preserveSelectedRowKeys: true,
            onChange: (keys) => setChecked(keys.map(Number)),
            getCheckboxProps: (r) => ({
              disabled: r.onlyHere,
              'aria-label': r.name,
              'data-testid': `assign-campaign-${r.id}`,
            }),
          }}
          columns={[
            {
              title: 'Campaign',
              dataIndex: 'name',
              render: (_: unknown, r: Row) => (
                <span>
                  {r.name}
                  {r.paused && (
                    <Tag style={{ marginInlineStart: 8 }} data-testid={`assign-campaign-paused-${r.id}`}>
                      paused
                    </Tag>
                  )}
                </span>
              ),
            },
            {
              title: 'Runs on',
              key: 'scope',
              width: 190,
              render: (_: unknown, r: Row) =>
                r.onlyHere ? (
                  <Tooltip title="Left out, it would run nowhere: pause the campaign instead, or give it another channel in its form">
                    <Typography.Text type="secondary" data-testid={`assign-campaign-scope-${r.id}`}>
                      {scopeWords(r)}
                    </Typography.Text>
                  </Tooltip>
                ) : (
                  <Typography.Text type="secondary" data-testid={`assign-campaign-scope-${r.id}`}>
                    {scopeWords(r)}
                  </Typography.Text>
                ),
            },
            {
              title: 'Change',
              key: 'change',
              width: 130,
              render: (_: unknown, r: Row) =>
                r.runs === wanted.has(r.id) ? null : r.runs ? (
                  <Tag color="orange">stops here</Tag>
                ) : (
                  <Tag color="green">starts here</Tag>
                ),
            },
          ]}
        />
        <Typography.Paragraph style={{ marginTop: 12, marginBottom: 0 }} data-testid="assign-campaigns-summary">
          {checked.length} of {rows.length} campaigns run on this channel
          {joining + leaving > 0 && ` after saving (${joining} start, ${leaving} stop)`}
        </Typography.Paragraph>
        {rows.some((r) => r.onlyHere) && (
          <Alert
            type="info"
            showIcon
            style={{ marginTop: 12 }}
            title="A campaign that runs only on this channel stays on it: to stop it, pause it"
          />
        )}
      </div>
    </Modal>
  );
}

import { Alert, Collapse, Descriptions, Table, type TableColumnType, Tag, Typography } from 'antd';
import {
  BROWSER_FAMILY_BY_ID,
  countryName,
  DEVICE_TYPE_BY_ID,
  type Fate,
  floorInForceText,
  formatUsdMicros,
  type IndexedOutCampaign,
  type NotInAdServer,
  OPERATING_SYSTEM_BY_ID,
  type PodSlotTrace,
  SMART_TV_FAMILY_BY_ID,
  type SourceFate,
  type TagTestAnswer,
} from '@adplane/shared';
import { EmptyValue, orEmpty } from '../../components/EmptyValue.js';
import { AdPlayer } from './AdPlayer.js';
import {
  armSentence,
  dealsSentence,
  demandOrderSentence,
  fateText,
  indexedOutText,
  ivtSentence,
  missText,
  podSentence,
  podSlotText,
  postbidSentence,
  reasonText,
  resultSentence,
  sourceLabel,
  winnerMoney,
} from './traceText.js';

const FATE_TAG: Record<Fate, { color: string; label: string }> = {
  won: { color: 'success', label: 'won' },
  lost: { color: 'gold', label: 'lost' },
  below_floor: { color: 'orange', label: 'below floor' },
  no_fill: { color: 'volcano', label: 'no fill' },
  timeout: { color: 'red', label: 'timed out' },
  filtered: { color: 'default', label: 'filtered' },
  not_called: { color: 'default', label: 'not called' },
};

const FATE_ORDER: Record<Fate, number> = {
  won: 0,
  lost: 1,
  below_floor: 2,
  no_fill: 3,
  timeout: 4,
  not_called: 5,
  filtered: 6,
};

const nameOr = (map: ReadonlyMap<string, { name: string }>, id: string) => (id ? (map.get(id)?.name ?? id) : '');
const unknown = <Typography.Text type="secondary">unknown</Typography.Text>;

/** An ad break's slots: each one's ad (or why it ended the break), its length and the room it had. */
function AdBreak({ pod }: { pod: readonly PodSlotTrace[] }) {
  return (
    <>
      <Typography.Title level={5}>The ad break</Typography.Title>
      <Table<PodSlotTrace>
        size="small"
        data-testid="tag-test-pod"
        rowKey="sequence"
        pagination={false}
        dataSource={[...pod]}
        columns={[
          { key: 'slot', title: 'Slot', width: 60, align: 'right', render: (_, s) => s.sequence },
          {
            key: 'ad',
            title: 'Ad',
            render: (_, s) =>
              s.winner ? (
                <div className="tag-test-source">
                  <Typography.Text type="secondary" className="tag-test-kind">
                    {sourceLabel(s.winner)} #{s.winner.id}
                  </Typography.Text>
                  <span>{s.winner.name}</span>
                </div>
              ) : (
                <Typography.Text type="secondary">{podSlotText(s)}</Typography.Text>
              ),
          },
          {
            key: 'length',
            title: 'Length',
            width: 80,
            align: 'right',
            render: (_, s) => (s.winner ? s.durationS ? `${s.durationS} s` : 'unknown' : <EmptyValue />),
          },
          {
            key: 'room',
            title: 'Room left',
            width: 100,
            align: 'right',
            render: (_, s) => (s.maxDurationS ? `${s.maxDurationS} s` : 'any'),
          },
          {
            key: 'cpm',
            title: 'CPM',
            width: 90,
            align: 'right',
            render: (_, s) => orEmpty(s.winner?.clearingCpm, formatUsdMicros),
          },
        ]}
      />
      <Typography.Paragraph type="secondary" className="tag-test-note">
        {podSentence(pod)}
      </Typography.Paragraph>
    </>
  );
}

/** A reason's code, as the API gives it, in small type beside its words. */
function Code({ text, testId }: { text: string; testId?: string }) {
  return (
    <Typography.Text type="secondary" className="tag-test-code" data-testid={testId}>
      {text}
    </Typography.Text>
  );
}

/**
 * The tables of campaigns set aside read in the drawer's own scroll while they are short: a few rows
 * of several lines each, scrolled inside a small box, would start with the first of them half-hidden.
 * A long list scrolls inside a tall box, its header kept in view.
 */
const INNER_SCROLL_ROWS = 8;
const tableScroll = (rows: number) => (rows > INNER_SCROLL_ROWS ? { y: 560 } : undefined);

/** The Campaign column of the tables of campaigns set aside: its id over its name. */
function campaignColumn<T extends { id: number; name: string }>(): TableColumnType<T> {
  return {
    key: 'campaign',
    title: 'Campaign',
    width: '38%',
    render: (_, c) => (
      <div className="tag-test-source">
        <Typography.Text type="secondary" className="tag-test-kind">
          Campaign #{c.id}
        </Typography.Text>
        <span>{c.name}</span>
      </div>
    ),
  };
}

/** The campaigns the targeting indexes set aside, by name, each with the rules that refused the request. */
function SetAside({ trace }: { trace: TagTestAnswer['trace'] }) {
  const named = trace.indexedOutCampaigns ?? [];
  const rest = trace.indexedOut - named.length;
  return (
    <>
      <Typography.Title level={5}>Campaigns set aside by targeting</Typography.Title>
      {named.length > 0 && (
        <Table<IndexedOutCampaign>
          size="small"
          data-testid="tag-test-set-aside"
          rowKey="id"
          dataSource={named}
          pagination={false}
          scroll={tableScroll(named.length)}
          columns={[
            campaignColumn<IndexedOutCampaign>(),
            {
              key: 'why',
              title: 'Why',
              // one line per rule that refused, its code under it
              render: (_, c) => (
                <div className="tag-test-misses">
                  {/* its channel assignment first, when it leaves out the channel: whatever the targeting says */}
                  {(c.reason === 'channel_not_assigned' || !c.misses.length) && (
                    <div className="tag-test-source">
                      <span>{c.misses.length ? reasonText(c.reason) : indexedOutText(c)}</span>
                      <Code text={c.reason} />
                    </div>
                  )}
                  {c.misses.map((m) => (
                    <div key={m.rule} className="tag-test-source">
                      <span>{missText(m)}</span>
                      <Code text={`targeting.${m.rule}`} />
                    </div>
                  ))}
                </div>
              ),
            },
          ]}
        />
      )}
      <Typography.Paragraph type="secondary" className="tag-test-note" data-testid="tag-test-set-aside-note">
        {named.length
          ? `${trace.indexedOut.toLocaleString('en-US')} campaign${trace.indexedOut === 1 ? ' was' : 's were'} set aside by the targeting indexes (country, device, OS, size, day-part...) without being looked at one by one${rest > 0 ? `; the first ${named.length.toLocaleString('en-US')} by name are listed, ${rest.toLocaleString('en-US')} more are not` : ''}.`
          : `${trace.indexedOut.toLocaleString('en-US')} campaign${trace.indexedOut === 1 ? ' was' : 's were'} set aside by the targeting indexes (country, device, OS, size, day-part...) without being looked at one by one.`}
      </Typography.Paragraph>
    </>
  );
}

/** The account's campaigns the ad server left out of its snapshot, each with every reason (the delivery state's sentence and code). */
function NotInAdServerList({ list }: { list: NonNullable<TagTestAnswer['trace']['notInAdServer']> }) {
  return (
    <>
      <Typography.Title level={5}>Campaigns not in the ad server</Typography.Title>
      <Table<NotInAdServer>
        size="small"
        data-testid="tag-test-not-served"
        rowKey="id"
        dataSource={list.campaigns}
        pagination={false}
        scroll={tableScroll(list.campaigns.length)}
        columns={[
          campaignColumn<NotInAdServer>(),
          {
            key: 'why',
            title: 'Why',
            render: (_, c) => (
              <div className="tag-test-misses">
                {c.reasons.map((r) => (
                  <div key={r.code} className="tag-test-source">
                    <span>{r.message}</span>
                    <Code text={r.code} />
                  </div>
                ))}
              </div>
            ),
          },
        ]}
      />
      <Typography.Paragraph type="secondary" className="tag-test-note">
        The ad server leaves these out of what it serves: they could not fill any request until what is said is fixed
        (archived campaigns are not listed)
        {list.more > 0 ? `; ${list.more.toLocaleString('en-US')} more are not listed` : ''}.
      </Typography.Paragraph>
    </>
  );
}

/** The decision of a "Test this tag" run: the outcome in a sentence, the context, every source's fate, and the ad playing. */
export function TestResult({ answer }: { answer: TagTestAnswer }) {
  const { trace } = answer;
  const c = trace.context;
  const filled = trace.result === 'filled';
  const sources = [...trace.sources].sort((a, b) => FATE_ORDER[a.fate] - FATE_ORDER[b.fate] || a.priority - b.priority);
  const show = (v: string) => v || unknown;
  const ivt = ivtSentence(trace);
  const postbid = postbidSentence(trace);
  const order = demandOrderSentence(trace);
  const arm = armSentence(trace);
  const deals = dealsSentence(trace);

  return (
    <div className="tag-test-result" data-testid="tag-test-result">
      <Alert
        type={filled ? 'success' : 'warning'}
        showIcon
        title={
          <>
            <span data-testid="tag-test-outcome">{resultSentence(trace)}</span>{' '}
            <Code text={trace.result} testId="tag-test-outcome-code" />
          </>
        }
        description={
          <span>
            {trace.winner && `${winnerMoney(trace.winner)} · `}
            decided in {trace.totalMs} ms · HTTP {answer.status} · configuration version {trace.snapshotVersion}
            {trace.channel?.floor && (
              <>
                <br />
                <span data-testid="tag-test-floor">Floor in force: {floorInForceText(trace.channel.floor)}</span>
              </>
            )}
            {ivt && (
              <>
                <br />
                <span data-testid="tag-test-ivt">{ivt}</span>
              </>
            )}
            {postbid && (
              <>
                <br />
                <span data-testid="tag-test-postbid">{postbid}</span>
              </>
            )}
            {arm && (
              <>
                <br />
                <span data-testid="tag-test-arm">{arm}</span>
              </>
            )}
            {deals && (
              <>
                <br />
                <span data-testid="tag-test-deals">{deals}</span>
              </>
            )}
            {order && (
              <>
                <br />
                <span data-testid="tag-test-order">{order}</span>
              </>
            )}
          </span>
        }
      />

      {trace.pod && <AdBreak pod={trace.pod} />}

      <Typography.Title level={5}>Context as the edge understood it</Typography.Title>
      <Descriptions size="small" bordered column={3} data-testid="tag-test-context">
        <Descriptions.Item label="Country">
          {c.country ? `${countryName(c.country)} (${c.country})` : unknown}
        </Descriptions.Item>
        <Descriptions.Item label="Region / state">{show(c.usState || c.region)}</Descriptions.Item>
        <Descriptions.Item label="IP">{show(c.ip)}</Descriptions.Item>
        <Descriptions.Item label="Device">{show(nameOr(DEVICE_TYPE_BY_ID, c.device))}</Descriptions.Item>
        <Descriptions.Item label="OS">{show(nameOr(OPERATING_SYSTEM_BY_ID, c.os))}</Descriptions.Item>
        <Descriptions.Item label={c.tvFamily ? 'TV family' : 'Browser'}>
          {show(c.tvFamily ? nameOr(SMART_TV_FAMILY_BY_ID, c.tvFamily) : nameOr(BROWSER_FAMILY_BY_ID, c.browser))}
        </Descriptions.Item>
        <Descriptions.Item label="Player">
          {c.width ? `${c.width}×${c.height || '?'} (${c.playerSize})` : unknown}
        </Descriptions.Item>
        <Descriptions.Item label={c.appBundle ? 'App bundle' : 'Domain'} span={2}>
          {show(c.appBundle || c.domain)}
        </Descriptions.Item>
        {(c.city || c.metro || c.postalCode) && (
          <Descriptions.Item label="City · metro · postal code" span={3}>
            <span data-testid="tag-test-place">
              {[c.city || unknown, c.metro ? `DMA ${c.metro}` : unknown, c.postalCode || unknown].map((v, i) => (
                <span key={i}>
                  {i > 0 && ' · '}
                  {v}
                </span>
              ))}
            </span>
          </Descriptions.Item>
        )}
        {c.keyValues?.length ? (
          <Descriptions.Item label="Key-values" span={3}>
            <span data-testid="tag-test-key-values">{c.keyValues.join(', ')}</span>
          </Descriptions.Item>
        ) : null}
      </Descriptions>

      <Typography.Title level={5}>Demand sources</Typography.Title>
      <Table<SourceFate>
        size="small"
        data-testid="tag-test-trace"
        rowKey={(s) => `${s.source}-${s.id}`}
        pagination={false}
        dataSource={sources}
        locale={{
          emptyText:
            'No demand source was considered: the channel lists no demand tag and the tenant has no campaign that could run here',
        }}
        columns={[
          {
            key: 'source',
            title: 'Source',
            render: (_, s) => (
              <div className="tag-test-source">
                <Typography.Text type="secondary" className="tag-test-kind">
                  {sourceLabel(s)} #{s.id}
                </Typography.Text>
                <span>{s.name}</span>
              </div>
            ),
          },
          { key: 'priority', title: 'Priority', width: 70, align: 'right', render: (_, s) => s.priority },
          {
            key: 'fate',
            title: 'Fate',
            width: 100,
            render: (_, s) => <Tag color={FATE_TAG[s.fate].color}>{FATE_TAG[s.fate].label}</Tag>,
          },
          {
            key: 'why',
            title: 'What happened',
            render: (_, s) => (
              <div className="tag-test-source">
                <span>{fateText(s, trace.sources)}</span>
                {s.reason && <Code text={s.reason} />}
              </div>
            ),
          },
          {
            key: 'bid',
            title: 'Bid CPM',
            width: 90,
            align: 'right',
            render: (_, s) => orEmpty(s.bidCpm, formatUsdMicros),
          },
          { key: 'ms', title: 'Time', width: 80, align: 'right', render: (_, s) => orEmpty(s.ms, (ms) => `${ms} ms`) },
        ]}
      />
      {trace.indexedOut > 0 && <SetAside trace={trace} />}
      {!!trace.notInAdServer?.campaigns.length && <NotInAdServerList list={trace.notInAdServer} />}

      <Typography.Title level={5}>The ad in a player</Typography.Title>
      {filled ? (
        <AdPlayer key={answer.vast} vast={answer.vast} label={trace.winner?.name ?? answer.tested.name} />
      ) : (
        <Typography.Paragraph type="secondary">
          Nothing filled: the player would get the empty VAST below and fire its error tracker.
        </Typography.Paragraph>
      )}

      <Collapse
        size="small"
        className="tag-test-xml"
        items={[{ key: 'vast', label: 'VAST answer', children: <pre data-testid="tag-test-vast">{answer.vast}</pre> }]}
      />
    </div>
  );
}

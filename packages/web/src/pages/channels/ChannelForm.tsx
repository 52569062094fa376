import { DeleteOutlined } from '@ant-design/icons';
import {
  Button,
  Checkbox,
  Col,
  Form,
  Input,
  InputNumber,
  Radio,
  Row,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { useMemo } from 'react';
import {
  AD_FORMAT_OPTIONS,
  AUCTION_PRICES,
  DEMAND_MODES,
  ENVIRONMENT_OPTIONS,
  INTEGRATION_OPTIONS,
  VAST_VERSIONS,
} from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { MoneyInput, RefSelect, useHelpLabel } from '../../resources/fields.js';
import { PriceFields } from '../../resources/unitFields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { DOMAIN_RULE } from '../accounts/formParts.js';
import { ChannelTagBox } from './ChannelTagBox.js';
import { PrebidSetup } from './PrebidSetup.js';
import { ChannelAdsTxtBox } from './ChannelAdsTxtBox.js';
import { ChannelCampaigns } from './ChannelCampaigns.js';
import { DemandOptimiseEditor } from './DemandOptimiseEditor.js';
import { SplitResultButton } from './SplitResult.js';
import { FloorRulesEditor } from '../../components/FloorRulesEditor.js';
import { DynamicFloorFields } from './DynamicFloorFields.js';
import './channels.css';
import { NameStatusRow, SectionTitle, trimmed } from '../../resources/formParts.js';

export const DEFAULT_REVSHARE = 70;

interface DemandEntry {
  tagId: number;
  priority: number;
  pinned?: boolean;
}

const toOptions = (items: readonly { id: string; name: string }[]) =>
  items.map((i) => ({ value: i.id, label: i.name }));
const DEMAND_MODE_LABELS: Record<(typeof DEMAND_MODES)[number], string> = {
  priority: 'Priority (waterfall)',
  auction: 'Auction',
};

/** The demand tags a channel calls, in a small editable table, and a picker to add more. */
function DemandTags({ readOnly, arm = '' }: { readOnly: boolean; arm?: '' | 'split' }) {
  const form = Form.useFormInstance();
  const label = useHelpLabel('channels');
  const { items: tags, loading } = useList('tags');
  // the channel's own list, or arm B's of its split (`split.demand`, with arm B's mode and order)
  const at = (field: string): string[] => (arm ? [arm, field] : [field]);
  const testId = (id: string) => (arm ? id.replace('channel-', 'channel-split-') : id);
  const demand = (Form.useWatch(at('demand'), form) as DemandEntry[] | undefined) ?? [];
  const mode = Form.useWatch(at('demandMode'), form) as string | undefined;
  const optimised = !!Form.useWatch(at('optimise'), form);
  const byId = useMemo(() => new Map(tags.map((t) => [Number(t.id), t])), [tags]);
  const chosen = new Set(demand.map((d) => d?.tagId));
  const available = tags
    .filter((t) => !t.archived && !chosen.has(Number(t.id)))
    .map((t) => ({ value: Number(t.id), label: `${t.name} (#${t.id})`, integration: String(t.integration ?? '') }));

  return (
    <Form.Item
      label={arm ? 'Arm B demand tags' : label('demand', 'Demand tags')}
      extra={
        optimised
          ? 'The order follows what each tag earned per call lately; a pinned tag keeps its place.'
          : mode === 'priority'
            ? 'Lower numbers are called first; tags with the same number compete in an auction.'
            : 'Every tag bids in one auction; the priority breaks ties.'
      }
    >
      <Form.List name={at('demand')}>
        {(fields, { add, remove }) => (
          <div
            className={`channel-demand${optimised ? ' channel-demand-pins' : ''}`}
            data-testid={testId('channel-demand')}
          >
            <div className="channel-demand-head">
              <span>Tag</span>
              {optimised && <span>Pinned</span>}
              <span style={{ textAlign: 'right' }}>Priority</span>
              <span />
            </div>
            {fields.length === 0 && (
              <Typography.Text type="secondary" className="channel-demand-empty">
                No demand tags yet: this channel serves nothing until you add one.
              </Typography.Text>
            )}
            {fields.map((field) => {
              const tagId = demand[field.name]?.tagId;
              const tag = byId.get(Number(tagId));
              return (
                <div key={field.key} className="channel-demand-row" data-testid={testId('channel-demand-row')}>
                  <Form.Item name={[field.name, 'tagId']} hidden>
                    <InputNumber />
                  </Form.Item>
                  <span className="channel-demand-name">
                    {tag ? tag.name : `Tag #${tagId}`}
                    {tag?.integration ? <Tag style={{ marginLeft: 8 }}>{String(tag.integration)}</Tag> : null}
                    {tag && tag.status === 0 && <Tag color="orange">Paused</Tag>}
                    {tag?.archived ? <Tag>Archived</Tag> : null}
                  </span>
                  {optimised && (
                    <Form.Item name={[field.name, 'pinned']} valuePropName="checked" noStyle>
                      <Checkbox aria-label="Pinned" disabled={readOnly} data-testid={testId('channel-demand-pinned')} />
                    </Form.Item>
                  )}
                  <Form.Item
                    name={[field.name, 'priority']}
                    noStyle
                    rules={[{ required: true, type: 'integer', min: 1, max: 100, message: 'Priority is 1 to 100' }]}
                  >
                    <InputNumber precision={0} style={{ width: 80 }} aria-label="Priority" />
                  </Form.Item>
                  {!readOnly && (
                    <Button
                      type="text"
                      danger
                      size="small"
                      icon={<DeleteOutlined />}
                      aria-label="Remove tag"
                      onClick={() => remove(field.name)}
                    />
                  )}
                </div>
              );
            })}
            {!readOnly && (
              <Select
                id={testId('channel-demand-add')}
                className="channel-demand-add"
                showSearch={{ optionFilterProp: 'label' }}
                loading={loading}
                placeholder={available.length ? 'Add a demand tag...' : 'Every tag is already in the list'}
                disabled={available.length === 0}
                value={null}
                options={available}
                optionRender={(o) => (
                  <Space>
                    {o.label}
                    {o.data.integration && <Tag>{o.data.integration}</Tag>}
                  </Space>
                )}
                onChange={(value: number) => {
                  const next =
                    mode === 'priority' ? Math.min(100, Math.max(0, ...demand.map((d) => d?.priority ?? 0)) + 1) : 1;
                  add({ tagId: value, priority: next });
                }}
              />
            )}
          </div>
        )}
      </Form.List>
    </Form.Item>
  );
}

/** What switching a split on starts from: half the requests, arm B in the channel's mode, its floor, no tags yet. */
const splitStart = (mode: unknown) => ({
  percent: 50,
  demand: [],
  demandMode: mode === 'priority' ? 'priority' : 'auction',
  floorCpm: null,
  optimise: null,
});

/**
 * An A/B split: off, or arm B's share of the requests, its demand mode, floor, optimised order and
 * demand tags (arm A is the channel as set above); on a saved channel, the A/B result of its arms.
 */
function SplitFields({ readOnly, channel }: { readOnly: boolean; channel: { id: number; name: string } | null }) {
  const form = Form.useFormInstance();
  const label = useHelpLabel('channels');
  // (`split` itself is no field, its parts are: watched in the store, where the switch sets it)
  const on = !!Form.useWatch('split', { form, preserve: true });
  const mode = Form.useWatch(['split', 'demandMode'], form) as string | undefined;
  return (
    <>
      <Form.Item label={label('split', 'A/B split')}>
        <Switch
          checked={on}
          disabled={readOnly}
          aria-label="A/B split"
          data-testid="channel-split-switch"
          onChange={(checked) =>
            form.setFieldValue('split', checked ? splitStart(form.getFieldValue('demandMode')) : null)
          }
        />
        <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
          {on
            ? 'Arm B serves its share of the requests with the demand below; arm A, the rest, with the channel as set above.'
            : 'Off: every request is served as set above.'}
        </Typography.Text>
        {on && channel && (
          <div style={{ marginTop: 8 }}>
            <SplitResultButton channelId={channel.id} channelName={channel.name} />
          </div>
        )}
      </Form.Item>
      {on && (
        <div className="channel-split" data-testid="channel-split">
          <Row gutter={16}>
            <Col span={8}>
              <Form.Item
                name={['split', 'percent']}
                label="Arm B's share"
                extra="Of the requests"
                rules={[{ required: true, type: 'integer', min: 1, max: 99, message: 'A share of 1 to 99 %' }]}
              >
                <InputNumber precision={0} suffix="%" style={{ width: '100%' }} data-testid="channel-split-percent" />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name={['split', 'demandMode']} label="Arm B demand mode">
                <Radio.Group
                  optionType="button"
                  options={DEMAND_MODES.map((m) => ({ value: m, label: DEMAND_MODE_LABELS[m] }))}
                />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name={['split', 'floorCpm']} label="Arm B floor CPM" extra="Empty: the channel's floor">
                <MoneyInput data-testid="channel-split-floor" />
              </Form.Item>
            </Col>
          </Row>
          <Form.Item name={['split', 'optimise']} label="Arm B: optimise the order">
            <DemandOptimiseEditor mode={mode} readOnly={readOnly} testId="channel-split-optimise" />
          </Form.Item>
          <DemandTags readOnly={readOnly} arm="split" />
        </div>
      )}
    </>
  );
}

/** The fields of a supply channel: who sells it, how it is called and paid, and the demand it calls. */
export function ChannelForm({ form, row, readOnly }: ResourceFormProps) {
  const label = useHelpLabel('channels');
  const auctionPrice = Form.useWatch('auctionPrice', form) as string | undefined;
  const floorCpm = (Form.useWatch('floorCpm', form) as number | undefined) ?? 0;
  const dynamicFloor = Form.useWatch('floorMode', form) === 'dynamic';
  const mode = Form.useWatch('demandMode', form) as string | undefined;

  return (
    <>
      <SectionTitle>Basics</SectionTitle>
      <NameStatusRow
        placeholder="Publisher - app or site - placement"
        message="Name the channel"
        testId="channel-name"
      />
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="subpublisherId" label={label('subpublisherId', 'Subpublisher')}>
            <RefSelect kind="subs" placeholder="None (own inventory)" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="domain" normalize={trimmed} label={label('domain', 'Domain')} rules={[DOMAIN_RULE]}>
            <Input placeholder="example.com" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="integration" label={label('integration', 'Integration')} rules={[{ required: true }]}>
            <Select options={toOptions(INTEGRATION_OPTIONS)} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="environment" label={label('environment', 'Environment')} rules={[{ required: true }]}>
            <Select options={toOptions(ENVIRONMENT_OPTIONS)} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="format" label={label('format', 'Format')} rules={[{ required: true }]}>
            <Select options={toOptions(AD_FORMAT_OPTIONS)} />
          </Form.Item>
        </Col>
      </Row>

      <SectionTitle>Pricing</SectionTitle>
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item name="floorCpm" label={label('floorCpm', 'Floor CPM')} extra="Bids below it are not served">
            <MoneyInput data-testid="channel-floor" />
          </Form.Item>
        </Col>
        <PriceFields
          name="payout"
          label={label}
          typeLabel="Publisher payout"
          typeOptions={[
            { value: 'revshare', label: 'Revenue share' },
            { value: 'cpm', label: 'Fixed CPM' },
          ]}
          cpmLabel="Payout CPM"
          cpmExtra="USD per 1,000 impressions"
          percentLabel="Publisher share"
          percentExtra="Percent of what demand pays"
          defaultPercent={DEFAULT_REVSHARE}
          testId="channel-payout"
        />
      </Row>
      <DynamicFloorFields row={row} readOnly={readOnly} />
      <Form.Item
        name="floorRules"
        hidden={dynamicFloor}
        label={label('floorRules', 'Floor rules')}
        extra="Floors by country, device, size, domain or bundle, media type, hour or deal: the most specific rule a request matches is its floor"
      >
        <FloorRulesEditor staticFloorCpm={floorCpm} readOnly={readOnly} />
      </Form.Item>

      <SectionTitle>Demand</SectionTitle>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="demandMode" label={label('demandMode', 'Demand mode')}>
            <Radio.Group
              optionType="button"
              options={DEMAND_MODES.map((m) => ({ value: m, label: DEMAND_MODE_LABELS[m] }))}
            />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="targetingId" label={label('targetingId', 'Targeting')}>
            <RefSelect kind="targetings" placeholder="None (all traffic)" />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item
            name="vastVersion"
            label={label('vastVersion', 'VAST version')}
            extra="The version the player reads"
          >
            <Select options={VAST_VERSIONS.map((v) => ({ value: v, label: `VAST ${v}` }))} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item
            name="auctionPrice"
            label={label('auctionPrice', 'Auction price')}
            extra={
              auctionPrice === 'second'
                ? "Second price: the winner pays the runner-up's bid plus $0.01"
                : 'First price: the winner pays its bid'
            }
          >
            <Radio.Group
              optionType="button"
              options={AUCTION_PRICES.map((p) => ({ value: p, label: p === 'first' ? 'First' : 'Second' }))}
            />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item
            name="timeoutMs"
            label={label('timeoutMs', 'Timeout (ms)')}
            extra="How long the channel waits for demand"
          >
            <InputNumber step={100} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item name="optimise" label={label('optimise', 'Optimise the order')}>
        <DemandOptimiseEditor mode={mode} readOnly={readOnly} />
      </Form.Item>
      <DemandTags readOnly={readOnly} />
      <SplitFields
        readOnly={readOnly}
        channel={typeof row?.id === 'number' ? { id: row.id, name: String(row.name ?? '') } : null}
      />

      <SectionTitle>Invalid traffic</SectionTitle>
      <Row gutter={16}>
        <Col span={16}>
          <Form.Item name="ivtIds" label={label('ivtIds', 'IVT pixels')}>
            <RefSelect kind="ivts" multiple placeholder="None" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item
            name="blockIVT"
            label={label('blockIVT', 'Block IVT')}
            valuePropName="checked"
            extra="Answer requests flagged as invalid traffic with no ad"
          >
            <Switch />
          </Form.Item>
        </Col>
      </Row>

      {row && (
        <>
          <SectionTitle>Tag</SectionTitle>
          <ChannelTagBox row={row} />
        </>
      )}
      {row && <PrebidSetup row={row} />}
      {typeof row?.id === 'number' && <ChannelAdsTxtBox channelId={row.id} />}
      {typeof row?.id === 'number' && (
        <ChannelCampaigns channelId={row.id} channelName={String(row.name ?? '')} readOnly={readOnly} />
      )}
    </>
  );
}

import { Alert, Checkbox, Col, Form, Input, InputNumber, Row, Switch, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import {
  type ChannelFloors,
  channelFloorsPath,
  DYNAMIC_FLOOR_DIMENSIONS,
  type DynamicFloorCell,
  type DynamicFloorDimension,
  type DynamicFloorSettingsInput,
  dynamicFloorWhy,
  formatUsdMicros,
} from '@adplane/shared';
import { api } from '../../api/client.js';
import { MoneyInput, useHelpLabel } from '../../resources/fields.js';
import { type ResourceRow } from '../../resources/resourceApi.js';

const DIMENSION_LABELS: Record<DynamicFloorDimension, string> = { country: 'Country', deviceType: 'Device type' };

/** A new dynamic floor's settings: the median of a day's prices, per country and device, from the channel's floor up to four times it. */
function dynamicFloorDefaults(floorCpm: number): DynamicFloorSettingsInput {
  return {
    percentile: 50,
    minCpm: floorCpm,
    maxCpm: Math.max(floorCpm * 4, 20_000_000),
    windowHours: 24,
    dimensions: ['country', 'deviceType'],
    minImpressions: 100,
  };
}

/** The mode a channel's body is saved with: dynamic when switched on, else its floor rules' (set or not). */
export function floorModeOf(values: Record<string, unknown>): 'static' | 'rules' | 'dynamic' {
  if (values.floorMode === 'dynamic') return 'dynamic';
  return values.floorRules ? 'rules' : 'static';
}

/**
 * The dynamic floor of a channel: on, the channel's floor follows its own clearing prices (a
 * percentile of the last hours' winning prices per country and device, within a minimum and a
 * maximum, computed hourly by the server) and the floor rules below are not in force. A saved
 * channel shows the floors in force now and why.
 */
export function DynamicFloorFields({ row, readOnly }: { row: ResourceRow | null; readOnly: boolean }) {
  const form = Form.useFormInstance();
  const label = useHelpLabel('channels');
  const on = Form.useWatch('floorMode', form) === 'dynamic';
  const floorCpm = (Form.useWatch('floorCpm', form) as number | undefined) ?? 0;
  const savedDynamic = row?.floorMode === 'dynamic' && typeof row.id === 'number';

  const toggle = (checked: boolean) => {
    if (checked) {
      form.setFieldValue('floorMode', 'dynamic');
      if (!form.getFieldValue('dynamicFloor')) form.setFieldValue('dynamicFloor', dynamicFloorDefaults(floorCpm));
    } else form.setFieldValue('floorMode', form.getFieldValue('floorRules') ? 'rules' : 'static');
  };

  return (
    <>
      <Form.Item name="floorMode" hidden>
        <Input />
      </Form.Item>
      <Form.Item
        label={label('dynamicFloor', 'Dynamic floor')}
        extra={
          on
            ? "The floor follows this channel's clearing prices, computed every hour; the floor CPM applies while there are too few impressions. The floor rules are not in force."
            : "Off: the floor CPM, or the floor rules below. On: a percentile of this channel's recent winning prices, per country and device."
        }
      >
        <Switch checked={on} disabled={readOnly} onChange={toggle} data-testid="dynamic-floor-switch" />
      </Form.Item>
      {on && (
        <div data-testid="dynamic-floor-settings">
          <Row gutter={16}>
            <Col span={8}>
              <Form.Item
                name={['dynamicFloor', 'percentile']}
                label={label('dynamicFloor.percentile', 'Percentile')}
                extra="50: the median impression's price"
              >
                <InputNumber min={1} max={99} precision={0} style={{ width: '100%' }} aria-label="Percentile" />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name={['dynamicFloor', 'minCpm']} label={label('dynamicFloor.minCpm', 'Minimum floor')}>
                <MoneyInput data-testid="dynamic-floor-min" />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item name={['dynamicFloor', 'maxCpm']} label={label('dynamicFloor.maxCpm', 'Maximum floor')}>
                <MoneyInput data-testid="dynamic-floor-max" />
              </Form.Item>
            </Col>
          </Row>
          <Row gutter={16}>
            <Col span={8}>
              <Form.Item
                name={['dynamicFloor', 'windowHours']}
                label={label('dynamicFloor.windowHours', 'Window (hours)')}
                extra="Clearing prices of the last hours read"
              >
                <InputNumber min={1} max={168} precision={0} style={{ width: '100%' }} aria-label="Window (hours)" />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item
                name={['dynamicFloor', 'dimensions']}
                label={label('dynamicFloor.dimensions', 'A floor per')}
                extra="None: one floor for the channel"
              >
                <Checkbox.Group
                  options={DYNAMIC_FLOOR_DIMENSIONS.map((d) => ({ value: d, label: DIMENSION_LABELS[d] }))}
                />
              </Form.Item>
            </Col>
            <Col span={8}>
              <Form.Item
                name={['dynamicFloor', 'minImpressions']}
                label={label('dynamicFloor.minImpressions', 'Impressions needed')}
                extra="Fewer: the coarser floor applies"
              >
                <InputNumber min={1} precision={0} style={{ width: '100%' }} aria-label="Impressions needed" />
              </Form.Item>
            </Col>
          </Row>
          {savedDynamic && <DynamicFloorsInForce channelId={row.id as number} />}
        </div>
      )}
    </>
  );
}

const DEVICE_NAMES: Record<string, string> = { desktop: 'Desktop', mobile: 'Mobile', smarttv: 'Smart TV' };

/** A key's value of field `i` as the console names it: a country's code, a device's name, "Any" for `*`. */
function cellValue(key: string, i: number, field: DynamicFloorDimension): string {
  const v = key.split('|')[i] ?? '*';
  if (v === '*') return 'Any';
  return field === 'country' ? v.toUpperCase() : (DEVICE_NAMES[v] ?? v);
}

/** The floors a saved dynamic channel's requests get now, per country and device, each with why. */
function DynamicFloorsInForce({ channelId }: { channelId: number }) {
  const [floors, setFloors] = useState<ChannelFloors | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let active = true;
    api
      .get<ChannelFloors>(channelFloorsPath(channelId))
      .then((r) => active && setFloors(r))
      .catch((e: unknown) => active && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      active = false;
    };
  }, [channelId]);

  if (error) return <Alert type="error" showIcon message={`The floors in force could not be read: ${error}`} />;
  if (!floors) return null;
  const { table, settings } = floors;
  if (!table)
    return (
      <Alert
        type="info"
        showIcon
        data-testid="dynamic-floors-pending"
        message="Not computed yet: the server computes this channel's floors within a minute of saving; until then the floor CPM applies, within the minimum and maximum."
      />
    );
  const bounds = settings ? { minCpm: settings.minCpm, maxCpm: settings.maxCpm } : undefined;
  const fields = table.fields;
  // the default first: what most requests of a thin channel get, on the first page whatever the table's length
  const rows = [table.default, ...table.cells];
  const basis = (c: DynamicFloorCell) => ({
    percentile: table.percentile,
    windowHours: table.windowHours,
    minImpressions: table.minImpressions,
    impressions: c.impressions,
    measuredCpm: c.measuredCpm,
    clamped: c.clamped,
    computedAt: table.computedAt,
  });
  const at = new Date(table.computedAt).toISOString().slice(0, 16).replace('T', ' ');
  return (
    <div data-testid="dynamic-floors">
      <Typography.Paragraph type="secondary" data-testid="dynamic-floors-summary">
        Floors in force, computed {at} UTC from {table.impressions.toLocaleString('en-US')} impressions over the last{' '}
        {table.windowHours} h
        {floors.nextRunAt ? `; next at ${new Date(floors.nextRunAt).toISOString().slice(11, 16)} UTC` : ''}.
      </Typography.Paragraph>
      <Table<DynamicFloorCell>
        size="small"
        rowKey="key"
        pagination={rows.length > 10 ? { pageSize: 10, pageSizeOptions: [10, 20, 50, 100] } : false}
        dataSource={rows}
        columns={[
          ...fields.map((f, i) => ({
            title: DIMENSION_LABELS[f],
            key: f,
            width: 120,
            // the channel's default spans the dimensions' columns
            onCell: (c: DynamicFloorCell) => (c.key === '*' ? { colSpan: i === 0 ? fields.length : 0 } : {}),
            render: (_: unknown, c: DynamicFloorCell) => (c.key === '*' ? 'Any other request' : cellValue(c.key, i, f)),
          })),
          {
            title: 'Floor CPM',
            key: 'floor',
            width: 110,
            align: 'right' as const,
            sorter: (a: DynamicFloorCell, b: DynamicFloorCell) => a.floorCpm - b.floorCpm,
            render: (_: unknown, c: DynamicFloorCell) => formatUsdMicros(c.floorCpm),
          },
          {
            title: 'Why',
            key: 'why',
            render: (_: unknown, c: DynamicFloorCell) => dynamicFloorWhy(basis(c), bounds),
          },
        ]}
      />
    </div>
  );
}

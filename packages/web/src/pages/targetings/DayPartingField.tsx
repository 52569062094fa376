import { Button, Select, Space, Switch, Typography } from 'antd';
import { type CSSProperties, type KeyboardEvent, type MouseEvent, useEffect, useRef } from 'react';
import { TIMEZONE_OPTIONS, WEEKDAYS } from '@adplane/shared';
import {
  ALL_DAYS,
  ALL_HOURS,
  DAY_SHORTCUTS,
  HOUR_SHORTCUTS,
  type DayPartingValue,
  applyShortcut,
  describeDayParting,
  paintRange,
  scheduleGrid,
} from './dayParting.js';

type Axis = 'days' | 'hours';
interface Drag {
  axis: Axis;
  anchor: number;
  on: boolean;
  /** The selection when the drag started: a drag that comes back un-paints what it passed. */
  base: number[];
}

const ON = '#1677ff';
const OFF = '#f0f0f0';
const cellStyle = (on: boolean): CSSProperties => ({ background: on ? ON : OFF, borderRadius: 2, height: 20 });
const axisStyle = (on: boolean, disabled: boolean): CSSProperties => ({
  height: 22,
  padding: 0,
  border: `1px solid ${on ? ON : '#d9d9d9'}`,
  borderRadius: 4,
  background: on ? '#e6f4ff' : '#fff',
  color: on ? ON : '#595959',
  fontSize: 11,
  fontWeight: on ? 600 : 400,
  cursor: disabled ? 'not-allowed' : 'pointer',
  userSelect: 'none',
});

/**
 * Day-parting: on/off, the time zone, and a 7x24 grid of the serving hours. The grid shows every
 * ticked day at every ticked hour (the contract stores days x hours); click or drag across the day
 * labels on the left and the hour labels on top to paint them on or off, or use the shortcuts.
 */
export function DayPartingField(props: {
  value?: DayPartingValue;
  onChange?: (v: DayPartingValue) => void;
  disabled?: boolean;
  id?: string;
}) {
  const value: DayPartingValue = props.value ?? {
    enabled: false,
    timezone: 0,
    days: [...ALL_DAYS],
    hours: [...ALL_HOURS],
  };
  const drag = useRef<Drag | null>(null);
  const latest = useRef(value);
  latest.current = value;
  const locked = Boolean(props.disabled);
  const gridOff = locked || !value.enabled;
  const grid = scheduleGrid(value);

  useEffect(() => {
    const stop = () => {
      drag.current = null;
    };
    window.addEventListener('mouseup', stop);
    return () => window.removeEventListener('mouseup', stop);
  }, []);

  const emit = (next: Partial<DayPartingValue>) => props.onChange?.({ ...latest.current, ...next });

  const start = (axis: Axis, n: number, e: MouseEvent) => {
    if (gridOff || e.button !== 0) return;
    e.preventDefault();
    const base = latest.current[axis];
    const on = !base.includes(n);
    drag.current = { axis, anchor: n, on, base };
    emit({ [axis]: paintRange(base, n, n, on) });
  };
  const over = (axis: Axis, n: number) => {
    const d = drag.current;
    if (!d || d.axis !== axis) return;
    emit({ [axis]: paintRange(d.base, d.anchor, n, d.on) });
  };
  /** Keyboard (and assistive technology) clicks have no mouse-down: toggle on the click itself. */
  const keyClick = (axis: Axis, n: number, e: MouseEvent) => {
    if (gridOff || e.detail !== 0) return;
    const base = latest.current[axis];
    emit({ [axis]: paintRange(base, n, n, !base.includes(n)) });
  };
  const stopKeys = (e: KeyboardEvent) => {
    if (e.key === 'Escape') drag.current = null;
  };

  return (
    <div id={props.id}>
      <Space wrap size={16} style={{ marginBottom: 12 }}>
        <Space>
          <Switch
            checked={value.enabled}
            onChange={(enabled) => emit({ enabled })}
            disabled={locked}
            data-testid="daypart-enabled"
          />
          <span>{value.enabled ? 'Serve only at the hours below' : 'Off: serves around the clock'}</span>
        </Space>
        <Space>
          <span>Time zone</span>
          <Select
            style={{ width: 120 }}
            value={value.timezone}
            onChange={(timezone: number) => emit({ timezone })}
            options={TIMEZONE_OPTIONS.map((t) => ({ value: t.id, label: t.name }))}
            disabled={locked || !value.enabled}
            data-testid="daypart-timezone"
          />
        </Space>
      </Space>
      <Space wrap size={4} style={{ marginBottom: 8 }}>
        {DAY_SHORTCUTS.map((s) => (
          <Button
            key={s.key}
            size="small"
            disabled={gridOff}
            onClick={() => emit(applyShortcut(latest.current, s.key))}
            data-testid={`daypart-${s.key}`}
          >
            {s.label}
          </Button>
        ))}
        <span style={{ width: 8 }} />
        {HOUR_SHORTCUTS.map((s) => (
          <Button
            key={s.key}
            size="small"
            disabled={gridOff}
            onClick={() => emit(applyShortcut(latest.current, s.key))}
            data-testid={`daypart-${s.key}`}
          >
            {s.label}
          </Button>
        ))}
      </Space>
      <div
        data-testid="daypart-grid"
        role="grid"
        aria-label="Serving hours by day"
        onKeyDown={stopKeys}
        style={{
          display: 'grid',
          gridTemplateColumns: '44px repeat(24, minmax(0, 1fr))',
          gap: 2,
          opacity: value.enabled ? 1 : 0.45,
          userSelect: 'none',
        }}
      >
        <span style={{ fontSize: 10, color: '#8c8c8c', alignSelf: 'end' }}>Hour</span>
        {ALL_HOURS.map((h) => {
          const on = value.hours.includes(h);
          return (
            <button
              type="button"
              key={`h${h}`}
              aria-pressed={on}
              aria-label={`${String(h).padStart(2, '0')}:00`}
              title={`${String(h).padStart(2, '0')}:00-${String(h + 1).padStart(2, '0')}:00`}
              disabled={gridOff}
              style={axisStyle(on, gridOff)}
              onMouseDown={(e) => start('hours', h, e)}
              onMouseEnter={() => over('hours', h)}
              onClick={(e) => keyClick('hours', h, e)}
              data-testid={`daypart-hour-${h}`}
            >
              {h}
            </button>
          );
        })}
        {ALL_DAYS.map((d) => {
          const on = value.days.includes(d);
          return [
            <button
              type="button"
              key={`d${d}`}
              aria-pressed={on}
              aria-label={WEEKDAYS[d]}
              disabled={gridOff}
              style={{ ...axisStyle(on, gridOff), height: 20 }}
              onMouseDown={(e) => start('days', d, e)}
              onMouseEnter={() => over('days', d)}
              onClick={(e) => keyClick('days', d, e)}
              data-testid={`daypart-day-${d}`}
            >
              {WEEKDAYS[d]}
            </button>,
            ...ALL_HOURS.map((h) => (
              <div
                key={`c${d}-${h}`}
                role="gridcell"
                aria-selected={grid[d][h]}
                title={`${WEEKDAYS[d]} ${String(h).padStart(2, '0')}:00: ${grid[d][h] ? 'serves' : 'does not serve'}`}
                data-testid={`daypart-cell-${d}-${h}`}
                data-on={grid[d][h] ? '1' : '0'}
                style={cellStyle(grid[d][h])}
                // A drag that started on a label keeps painting when it wanders into the grid.
                onMouseEnter={() => (drag.current?.axis === 'hours' ? over('hours', h) : over('days', d))}
              />
            )),
          ];
        })}
      </div>
      <Typography.Paragraph type="secondary" style={{ fontSize: 12, margin: '8px 0 0' }}>
        Blue cells serve: every ticked day at every ticked hour. Click or drag across the days on the left and the hours
        on top.
      </Typography.Paragraph>
      <Typography.Text strong data-testid="daypart-summary">
        {describeDayParting(value)}
      </Typography.Text>
    </div>
  );
}

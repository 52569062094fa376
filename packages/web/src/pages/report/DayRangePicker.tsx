import { DatePicker, Select } from 'antd';
import dayjs from 'dayjs';
import { DATE_PRESETS, type DatePreset, PRESET_LABELS, presetRange } from './reportState.js';

/** A range of whole days, as the report API takes them (YYYY-MM-DD, in the user's time zone). */
export interface DayRange {
  startDate: string;
  endDate: string;
}

/**
 * The days a view shows: a range picker and the report's date presets beside it (a preset fills the
 * range in the user's time zone, then the picker shows it). Two inline controls, for the caller's
 * own row of controls.
 */
export function DayRangePicker({
  range,
  onChange,
  timezone,
}: {
  range: DayRange;
  onChange: (range: DayRange) => void;
  timezone: number;
}) {
  return (
    <>
      <DatePicker.RangePicker
        allowClear={false}
        value={[dayjs(range.startDate), dayjs(range.endDate)]}
        onChange={(r) =>
          r?.[0] && r[1] && onChange({ startDate: r[0].format('YYYY-MM-DD'), endDate: r[1].format('YYYY-MM-DD') })
        }
      />
      <Select<DatePreset>
        placeholder="Presets"
        style={{ width: 150 }}
        value={null as unknown as DatePreset}
        onChange={(p) => onChange(presetRange(p, timezone))}
        options={DATE_PRESETS.map((p) => ({ value: p, label: PRESET_LABELS[p] }))}
      />
    </>
  );
}

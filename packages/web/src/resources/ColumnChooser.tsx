import { SettingOutlined } from '@ant-design/icons';
import { Button, Checkbox, Popover, Space, Typography } from 'antd';

export interface ChooserColumn {
  key: string;
  label: string;
}

/**
 * Which columns a list shows, remembered per user and list (tablePrefs.ts). The name and the actions
 * are always there; everything else can be hidden, and Reset brings back the list's defaults.
 */
export function ColumnChooser({
  columns,
  hidden,
  onChange,
  defaults,
}: {
  columns: ChooserColumn[];
  hidden: string[];
  onChange: (hidden: string[]) => void;
  defaults: string[];
}) {
  const hiddenSet = new Set(hidden);
  const content = (
    <div className="column-chooser" data-testid="column-chooser">
      <Space orientation="vertical" size={2}>
        {columns.map((c) => (
          <Checkbox
            key={c.key}
            checked={!hiddenSet.has(c.key)}
            data-testid={`column-toggle-${c.key}`}
            onChange={(e) => onChange(e.target.checked ? hidden.filter((k) => k !== c.key) : [...hidden, c.key])}
          >
            {c.label}
          </Checkbox>
        ))}
      </Space>
      <div className="column-chooser-foot">
        <Typography.Link onClick={() => onChange([...defaults])} data-testid="column-reset">
          Reset to defaults
        </Typography.Link>
      </div>
    </div>
  );
  return (
    <Popover trigger="click" placement="bottomRight" title="Columns" content={content}>
      <Button icon={<SettingOutlined />} data-testid="column-chooser-open">
        Columns
      </Button>
    </Popover>
  );
}

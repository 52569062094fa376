import { QuestionCircleOutlined } from '@ant-design/icons';
import { AutoComplete, Form, Input, Space, Tooltip, Typography } from 'antd';
import { useMemo } from 'react';
import { useList } from '../../api/lists.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { FIELD_KEYS, TOOLTIP_KEY, formOfKey } from './tooltipKeys.js';

/** A tooltip: the field it explains (`<kind>.<field>`) and the help text shown as (?) beside it. */
export function TooltipForm({ form, row }: ResourceFormProps) {
  const { items } = useList('tooltips');
  const key = (Form.useWatch('key', form) as string | undefined) ?? '';
  const text = (Form.useWatch('text', form) as string | undefined) ?? '';
  const taken = useMemo(
    () => new Map(items.filter((i) => !i.archived && i.id !== row?.id).map((i) => [String(i.key), Number(i.id)])),
    [items, row?.id],
  );

  const options = useMemo(() => {
    const term = key.trim().toLowerCase();
    return FIELD_KEYS.filter((f) => f.key.toLowerCase().includes(term))
      .slice(0, 50)
      .map((f) => ({
        value: f.key,
        label: (
          <Space style={{ justifyContent: 'space-between', width: '100%' }}>
            <span>{f.key}</span>
            <Typography.Text type="secondary">{taken.has(f.key) ? 'has a tooltip' : formOfKey(f.key)}</Typography.Text>
          </Space>
        ),
      }));
  }, [key, taken]);

  return (
    <>
      <Form.Item
        name="key"
        label="Field"
        extra="The form field the text explains, as <page>.<field>: channels.floorCpm is the floor of the channel form."
        rules={[
          { required: true, whitespace: true, message: 'Pick the field' },
          { pattern: TOOLTIP_KEY, message: 'Must look like resource.field, e.g. channels.floorCpm' },
          { max: 128 },
          {
            validator: async (_rule, value: string | undefined) => {
              const other = value ? taken.get(value.trim()) : undefined;
              if (other !== undefined) throw new Error(`This field already has a tooltip (#${other}): edit that one`);
            },
          },
        ]}
      >
        <AutoComplete options={options} placeholder="channels.floorCpm" />
      </Form.Item>
      <Form.Item
        name="text"
        label="Help text"
        rules={[{ required: true, whitespace: true, message: 'Write the help text' }, { max: 1000 }]}
      >
        <Input.TextArea autoSize={{ minRows: 3, maxRows: 10 }} showCount maxLength={1000} data-testid="tooltip-text" />
      </Form.Item>
      {key && text.trim() && (
        <Typography.Paragraph type="secondary">
          Shown as{' '}
          <Tooltip title={text}>
            <span>
              {key.split('.').slice(1).join('.')} <QuestionCircleOutlined />
            </span>
          </Tooltip>{' '}
          on the {formOfKey(key) || 'matching'} form.
        </Typography.Paragraph>
      )}
    </>
  );
}

import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { RESOURCES } from '@adplane/shared';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { TooltipForm } from './TooltipForm.js';
import { formOfKey } from './tooltipKeys.js';

export function tooltipDefaults(): Record<string, unknown> {
  return { key: '', text: '' };
}

/** The API names a tooltip by its key; the form edits key and text only. */
export function tooltipToBody(values: Record<string, unknown>): Record<string, unknown> {
  return { key: String(values.key ?? '').trim(), text: String(values.text ?? '') };
}

/** Tooltips (admin): the help text every user sees as (?) beside a form field. */
export default function TooltipsPage() {
  const columns: ColumnsType<ResourceRow> = [
    { title: 'Form', dataIndex: 'key', key: 'form', width: 140, render: (key: string) => formOfKey(key) },
    { title: 'Text', dataIndex: 'text', key: 'text', ellipsis: true },
  ];
  return (
    <ResourceListPage
      def={RESOURCES.tooltips}
      nameTitle="Key"
      columns={columns}
      FormBody={TooltipForm}
      defaults={tooltipDefaults}
      toBody={tooltipToBody}
      canDuplicate={false}
      intro={
        <Typography.Paragraph type="secondary">
          Each tooltip shows as (?) beside one field of a form, for every user. The key names the field:{' '}
          <Typography.Text code>channels.floorCpm</Typography.Text> is the floor of a channel.
        </Typography.Paragraph>
      }
    />
  );
}

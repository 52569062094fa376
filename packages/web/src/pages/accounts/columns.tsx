import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { type ResourceRow } from '../../resources/resourceApi.js';

const orNone = (v: unknown) => (typeof v === 'string' && v !== '' ? v : <Typography.Text type="secondary">-</Typography.Text>);

/** The columns every account list shows after its name: sign-in, e-mail, company and, where kept, domain. */
export function accountColumns(options: { company?: boolean; domain?: boolean } = {}): ColumnsType<ResourceRow> {
  const columns: ColumnsType<ResourceRow> = [
    { title: 'Username', dataIndex: 'username', key: 'username', sorter: true, render: (v: string) => <Typography.Text copyable={{ text: v, tooltips: ['Copy', 'Copied'] }}>{v}</Typography.Text> },
    { title: 'E-mail', dataIndex: 'email', key: 'email', render: orNone },
  ];
  if (options.company ?? true) columns.push({ title: 'Company', dataIndex: 'companyName', key: 'companyName', width: 170, render: orNone });
  if (options.domain) columns.push({ title: 'Domain', dataIndex: 'domain', key: 'domain', render: orNone });
  return columns;
}

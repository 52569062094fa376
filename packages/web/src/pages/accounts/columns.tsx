import { Typography } from 'antd';
import { type ColumnsType } from 'antd/es/table';
import { orEmpty } from '../../components/EmptyValue.js';
import { EllipsisText } from '../../resources/cells.js';
import { type ResourceRow } from '../../resources/resourceApi.js';

/** A text cell cut to one line, or the empty mark. */
const textCell = (v: unknown) => orEmpty(typeof v === 'string' ? v : null, (text) => <EllipsisText text={text} />);

/** The columns every account list shows after its name: sign-in, e-mail, company and, where kept, domain. */
export function accountColumns(options: { company?: boolean; domain?: boolean } = {}): ColumnsType<ResourceRow> {
  const columns: ColumnsType<ResourceRow> = [
    {
      title: 'Username',
      dataIndex: 'username',
      key: 'username',
      width: 130,
      sorter: true,
      ellipsis: { showTitle: false },
      render: (v: string) => (
        <Typography.Text copyable={{ text: v, tooltips: ['Copy', 'Copied'] }}>{v}</Typography.Text>
      ),
    },
    { title: 'E-mail', dataIndex: 'email', key: 'email', width: 190, ellipsis: { showTitle: false }, render: textCell },
  ];
  if (options.company ?? true)
    columns.push({
      title: 'Company',
      dataIndex: 'companyName',
      key: 'companyName',
      width: 160,
      ellipsis: { showTitle: false },
      render: textCell,
    });
  if (options.domain)
    columns.push({
      title: 'Domain',
      dataIndex: 'domain',
      key: 'domain',
      width: 140,
      ellipsis: { showTitle: false },
      render: textCell,
    });
  return columns;
}

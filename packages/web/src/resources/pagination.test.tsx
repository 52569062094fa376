import '../test/setup.js';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Table } from 'antd';
import { listPagination, pageRangeText } from './pagination.js';

describe('the pager of every list', () => {
  it('counts the rows shown and of how many, with thousands separators', () => {
    expect(pageRangeText(3, [1, 3])).toBe('1-3 of 3');
    expect(pageRangeText(1234, [1001, 1020])).toBe('1,001-1,020 of 1,234');
  });

  it('offers 10, 20, 50 and 100 a page, 20 by default, and keeps what a server-paged list passes', () => {
    expect(listPagination()).toMatchObject({
      defaultPageSize: 20,
      pageSizeOptions: ['10', '20', '50', '100'],
      showSizeChanger: true,
    });
    expect(listPagination({ current: 2, pageSize: 50, total: 120 })).toMatchObject({
      current: 2,
      pageSize: 50,
      total: 120,
      showTotal: pageRangeText,
    });
  });

  it('shows the count under a table paged in the browser', () => {
    const rows = [1, 2, 3].map((id) => ({ id, name: `Row ${id}` }));
    render(
      <Table
        rowKey="id"
        dataSource={rows}
        columns={[{ key: 'name', dataIndex: 'name' }]}
        pagination={listPagination()}
      />,
    );
    expect(screen.getByText('1-3 of 3')).toBeTruthy();
  });
});

import { type TablePaginationConfig } from 'antd/es/table';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from '@adplane/shared';

const count = (n: number) => n.toLocaleString('en-US');

/** Which rows the page shows and of how many: `1-20 of 1,234` (antd's showTotal). */
export function pageRangeText(total: number, [from, to]: [number, number]): string {
  return `${count(from)}-${count(to)} of ${count(total)}`;
}

/**
 * The pager of every table that pages (10, 20, 50, 100 a page): the page sizes, the
 * size changer and the `1-20 of 1,234` count, the same on every list. A table paged by the server
 * passes its `current`, `pageSize` and `total`; a table paged in the browser passes nothing.
 */
export function listPagination(
  server: Pick<TablePaginationConfig, 'current' | 'pageSize' | 'total'> = {},
): TablePaginationConfig {
  return {
    defaultPageSize: DEFAULT_PAGE_SIZE,
    pageSizeOptions: PAGE_SIZES.map(String),
    showSizeChanger: true,
    size: 'small',
    showTotal: pageRangeText,
    ...server,
  };
}

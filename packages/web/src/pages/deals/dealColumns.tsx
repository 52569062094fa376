import { type ColumnType } from 'antd/es/table';
import { usd } from '../../resources/fields.js';
import { CopyValue } from '../../resources/cells.js';
import { COLUMN_WIDTHS } from '../../resources/columnWidths.js';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { FlightCell } from '../dsp/FlightCell.js';

/** The columns a list of deals bought (Deals) and of deals sold (Supply Deals) share. */

export const DEAL_ID_COLUMN: ColumnType<ResourceRow> = {
  title: 'Deal ID',
  dataIndex: 'dealId',
  key: 'dealId',
  width: COLUMN_WIDTHS.copyValue,
  sorter: true,
  ellipsis: { showTitle: false },
  render: (v: unknown) => <CopyValue value={String(v ?? '')} />,
};

export const DEAL_FLOOR_COLUMN: ColumnType<ResourceRow> = {
  title: 'Floor CPM',
  dataIndex: 'floorCpm',
  key: 'floorCpm',
  width: COLUMN_WIDTHS.price,
  align: 'right',
  sorter: true,
  render: usd,
};

export const DEAL_FLIGHT_COLUMN: ColumnType<ResourceRow> = {
  title: 'Flight',
  key: 'flight',
  width: COLUMN_WIDTHS.flight,
  render: (_: unknown, row) => <FlightCell start={row.startDate} end={row.endDate} />,
};

import { type MetricId } from '@adplane/shared';
import { type Key } from 'react';

/**
 * The widths of the list pages' columns, in one place, so that every list fits a laptop's window.
 *
 * At 1280x800 a list's table gets 1280 - 2 x 24 (the page's padding) - 2 x 24 (the card's) = 1184 px,
 * 1167 px beside a classic 17 px scrollbar: the columns a list shows by default, with its name at
 * NAME_MIN_WIDTH, add up to no more than LIST_FIT_WIDTH (e2e/specs/listFit.spec.ts checks every list
 * in a browser). Only the columns whose content has a natural size get a width; the name takes what
 * they leave, so a wider window gives it room. A value longer than its column ends in an ellipsis
 * with all of it on hover (cells.tsx), and a list with more columns than that keeps the rest in its
 * column chooser (`defaultHidden`).
 */
export const LIST_FIT_WIDTH = 1167;

/** The smallest the name column gets (about 20 characters) before the table scrolls sideways. */
export const NAME_MIN_WIDTH = 160;
/** The smallest another width-less column gets (a targeting's rules, a tooltip's text). */
export const FLEX_MIN_WIDTH = 160;

/** An antd small table cell's padding, left and right. */
const CELL_PADDING = 16;
/** A small text icon button of a row's actions. */
const ACTION_BUTTON = 24;

/**
 * Widths by what a column holds (each fits its title with the sort arrows and the values a list
 * shows), shared by every list page instead of a number per page.
 */
export const COLUMN_WIDTHS = {
  /** the row checkbox of the bulk actions */
  select: 32,
  /** a row's id, up to five digits */
  id: 54,
  /** the status tag (`Archived` the widest) */
  status: 78,
  /** `2026-11-23 14:05 UTC+10` */
  updated: 162,
  /** a uid, an endpoint or a deal id, cut to fit, with its copy icon */
  copyValue: 150,
  /** an SDK app's key (a 16-character uid) whole, with its copy icon */
  appKey: 176,
  /** the name of another account on the row (an advertiser, a subpublisher), cut to fit */
  account: 112,
  /** a short label of what a row is: a channel's type, a tag's integration and partner, an app's platform */
  type: 136,
  /** the longest such label whole, `PreBid · Mobile app display`, where a wide window leaves room (WIDE_WINDOW) */
  typeWide: 184,
  /** an amount: `$18.00`, `$1,250.00` */
  money: 88,
  /** an amount and its unit: `$22.00 CPM`, `80.00% share` */
  price: 104,
  /** a floor and a price: `$8.00 · 65.00% share` */
  floorPrice: 144,
  /** `22.00%` */
  percent: 76,
  /** a count or a limit: `3,000`, `1,500 ms`, `Unlimited` */
  count: 90,
  /** what a capped deal delivered against its caps: `12,345 / 50,000`, `1,200 / 5,000 today` */
  delivery: 160,
  /** `2026-10-28 – 2027-01-26` */
  flight: 168,
  /** a total budget and a daily one in whole dollars: `$120,000 · $1,500/day` */
  budget: 150,
  /** an app's bundle id or store id: `com.harborvideo.androidtv` */
  bundle: 200,
} as const;

/**
 * The narrowest window (a 1440 px laptop and up, beside a scrollbar) where a list's widest columns
 * get the room their longest values need (`typeWide`); below it they keep the width that fits 1280 px.
 */
export const WIDE_WINDOW = 1440;

/** Room for the widest value a list shows (`$12,345.67`, `100.00%`, `1,234,567`) and the metric's short title with its sort arrows. */
const METRIC_WIDTHS: Partial<Record<MetricId, number>> = {
  revenue: 90,
  reqs: 88,
  source_reqs: 88,
  deal_reqs: 88,
  bids: 76,
  wins: 72,
  ecpm: 72,
  fill: 68,
  sourceFill: 68,
  imps: 72,
};

export const metricWidth = (id: MetricId): number => METRIC_WIDTHS[id] ?? 76;

/** The actions column of `buttons` small icon buttons side by side. */
export const actionsWidth = (buttons: number): number => buttons * ACTION_BUTTON + CELL_PADDING;

/**
 * The smallest width of a list's table: its columns' widths, the name and any other width-less
 * column at their minimum, and the row checkboxes. Below it the table scrolls sideways; above it the
 * width-less columns share the rest.
 */
export function minTableWidth(columns: readonly { key?: Key; width?: string | number }[], selection: boolean): number {
  const widthOf = (c: { key?: Key; width?: string | number }) =>
    typeof c.width === 'number' ? c.width : c.key === 'name' ? NAME_MIN_WIDTH : FLEX_MIN_WIDTH;
  return columns.reduce((sum, c) => sum + widthOf(c), selection ? COLUMN_WIDTHS.select : 0);
}

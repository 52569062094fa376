/** Business constants of the console specification (section 9), in one place for server and console. */

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 20;

export const TIMEZONE_MIN = -12;
export const TIMEZONE_MAX = 12;
/** Offsets -12..+12 in whole hours. */
export const TIMEZONES: readonly number[] = Array.from(
  { length: TIMEZONE_MAX - TIMEZONE_MIN + 1 },
  (_, i) => TIMEZONE_MIN + i,
);

export const LOADING_BAR_DELAY_MS = 200;
export const LOADING_BAR_DURATION_MS = 5000;
export const CHUNK_RELOAD_GUARD_MS = 60_000;
export const SAVED_REPORTS_POLL_MS = 60_000;
export const SAVED_REPORTS_MAX = 20;
export const COMPANY_NAME_MAX = 100;
/** The longest name of an entity (a channel, tag, campaign, ...). */
export const ENTITY_NAME_MAX = 255;
/** The longest name of a saved report or report file. */
export const REPORT_NAME_MAX = 100;

export const CURRENCY = { id: 'USD', symbol: '$', decimals: 2 } as const;
export const PERCENT_DECIMALS = 2;
export const DATE_FORMAT = 'YYYY-MM-DD';

/** Browser storage keys. */
export const STORAGE_KEYS = {
  uiTabs: 'ui_tabs',
  mode: 'adplane_mode',
  chunkReloadAt: 'adplane_chunk_reload_at',
  listPrefix: 'adplane_list_',
  /** Local: the period of the numbers beside list rows, per user (`adplane_period_<userId>`). */
  periodPrefix: 'adplane_period_',
  /** Local: the columns a user hid on a list (`adplane_columns_<userId>_<kind>`, a JSON array of keys). */
  columnsPrefix: 'adplane_columns_',
} as const;

/** Database setting ("edition") that switches parts of the console on and off. */
export const EDITIONS = ['default', 'V2V', 'CTVMediaV2V'] as const;
export type Edition = (typeof EDITIONS)[number];

export const MODES = ['ssp', 'dsp'] as const;
export type Mode = (typeof MODES)[number];

/** The super admin carries this uid; every other admin is flagged as disabled for some actions. */
export const SUPER_ADMIN_UID = 'super';

/** The sandboxed page the console previews HTML creatives in (server: web/creativePreview.ts). */
export const CREATIVE_PREVIEW_PATH = '/preview/creative.html';
/** The `type` of the message that hands the preview page a creative's markup. */
export const CREATIVE_PREVIEW_MESSAGE = 'adplane-creative-html';

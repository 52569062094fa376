import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { EDITIONS, type Edition } from '@adplane/shared';
import { addressRanges } from './http/addressRanges.js';
import { proxyTrust } from './http/clientAddress.js';
import { type IvtSettings, readIvtSettings } from './ivt/ivtSettings.js';
import { type MailSettings, mailSettingsProblem } from './mail/mailSettings.js';
import { parseAllowList } from './ops/metricsAccess.js';
import { serverPath } from './serverRoot.js';

/**
 * Every setting of the adplane program, read once from the environment at start. A bad value stops
 * the program with one line per bad variable, so an operator fixes them all in one go.
 */
export interface Settings {
  port: number;
  host: string;
  /** Absolute folder for the SQLite file, the persisted session secret and later the stats store. */
  dataDir: string;
  /** PostgreSQL URL; null means the embedded SQLite file `dataDir/adplane.sqlite`. */
  databaseUrl: string | null;
  /** ClickHouse HTTP URL for the stats store; null means the embedded DuckDB file `dataDir/stats.duckdb`. */
  clickhouseUrl: string | null;
  /** Redis URL for delivery counters shared across processes and snapshot invalidation; null means in-process (docs/delivery.md). */
  redisUrl: string | null;
  /**
   * What every Redis key of this deployment starts with (`adplane:` unless ADPLANE_REDIS_PREFIX says
   * otherwise): deployments that share one Redis each keep their counts apart by their own prefix.
   */
  redisPrefix: string;
  edition: Edition;
  /** Where the console logo links; '' when none. */
  landingUrl: string;
  /** The V2V edition's Insight Hub link; '' when none. */
  insightHubUrl: string;
  /** Public origin used in tag URLs and to decide whether the session cookie is Secure. */
  publicHost: string;
  /** From ADPLANE_SESSION_SECRET; when null one is generated and persisted (see store/sessionSecret.ts). */
  sessionSecret: string | null;
  sessionTtlHours: number;
  /** Requests per API key and minute (ADPLANE_API_KEY_RATE_PER_MINUTE, default 600), per process (docs/security.md). */
  apiKeyRatePerMinute: number;
  demo: boolean;
  demoPassword: string;
  adminPassword: string | null;
  encryptResponses: boolean;
  logLevel: LogLevel;
  /** One log line per HTTP request at info (ADPLANE_ACCESS_LOG=1); otherwise those lines are at debug only. */
  accessLog: boolean;
  /** Folder of the built console (index.html and assets); served only when it exists. */
  webDist: string;
  /** Fastify `trustProxy`: false unless the server sits behind a known load balancer. */
  trustProxy: boolean | string;
  /** Who may scrape /metrics: addresses or CIDR ranges, and/or a bearer token (ops/metricsAccess.ts). */
  metricsAllow: string[];
  metricsToken: string | null;
  /** Report files written at once by this process (ADPLANE_REPORT_FILES_AT_ONCE, default 2); more wait in line (docs/reports.md). */
  reportFilesAtOnce: number;
  /** Report files one user may have in line, written and waiting (ADPLANE_REPORT_FILES_PER_USER, default 4); one more is refused. */
  reportFilesPerUser: number;
  /** Report files' CSV made on a thread of its own, not the serving thread (ADPLANE_REPORT_FILES_THREAD, default '1'; docs/reports.md). */
  reportFilesThread: boolean;
  /** On SIGTERM, how long requests in flight may take before their connections are cut. */
  shutdownGraceMs: number;
  /** How long an idle keep-alive connection stays open (ms): longer than the callers' own idle timeouts. */
  keepAliveMs: number;
  /**
   * How often the edge's counters are flushed to the stats store (ADPLANE_STATS_FLUSH_SECONDS, default
   * 5, in ms here): what a crash may lose is what was answered in one such interval (docs/ad-server.md).
   */
  statsFlushMs: number;
  /**
   * How often an edge process reads the config version (ADPLANE_CONFIG_POLL_MS, default 250): the
   * safety net behind the change feed (in-process, the cluster primary, or Redis pub/sub), which
   * brings a change at once; a rebuild follows when the version moved.
   */
  configPollMs: number;
  /** A MaxMind GeoIP2/GeoLite2 City database the edge reads geo from (geoip-lite's bundled data otherwise). */
  maxmindDb: string | null;
  /**
   * The Prebid Server auction endpoint (…/openrtb2/auction, Go or Java) PreBid demand tags are sent to
   * (ADPLANE_PREBID_SERVER_URL); null: PreBid tags are filtered as prebid_server_not_configured.
   */
  prebidServerUrl: string | null;
  /**
   * The ads.txt check may fetch from private and loopback addresses, IP literals and explicit ports
   * (ADPLANE_ADSTXT_ALLOW_PRIVATE=1): for tests and a local install only; off, it reaches public hosts only.
   */
  adsTxtAllowPrivate: boolean;
  /**
   * The edge's calls to demand (VAST tags and their wrappers, OpenRTB and Prebid endpoints, error
   * trackers, win, loss and billing notices) may reach loopback and private networks
   * (ADPLANE_DEMAND_ALLOW_PRIVATE=1: tests, a local install, demand on the operator's own network).
   * Off, they reach public addresses only, and this server's own origin and Prebid Server
   * (http/outboundAddress.ts). Link-local addresses (cloud metadata) are never called.
   */
  demandAllowPrivate: boolean;
  /**
   * Demand tags and exchange endpoints may address this server's own decision entry points (/vast/,
   * /rtb/, /openrtb2/auction, /openrtb2/amp on its public host or its listening address), and a
   * request that came from one of its own demand calls is decided, one hop deep
   * (ADPLANE_ALLOW_SELF_DEMAND=1: one tenant reselling to another on the same deployment). Off, such
   * URLs are refused when saved and when called, and a request of its own is a no-fill
   * (edge/request/demandHops.ts).
   */
  allowSelfDemand: boolean;
  /**
   * Exchange rates for demand and supply that trade in other currencies than USD: a path or an
   * http(s) URL of a currency file in Prebid's format (ADPLANE_CURRENCY_RATES), a URL read again every
   * `currencyRefreshMinutes`; null: USD only (edge/openrtb/currency.ts).
   */
  currencyRates: string | null;
  currencyRefreshMinutes: number;
  /** The pre-bid IVT check: refresh files for its lists and the rate rule's limits (ivt/ivtSettings.ts, ADPLANE_IVT_*). */
  ivt: IvtSettings;
  /** Outgoing mail (mail/mailer.ts): ADPLANE_SMTP_URL and ADPLANE_MAIL_FROM, both or neither; null: mail is off. */
  mail: MailSettings | null;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** packages/web/dist, found from this file so it does not depend on the working directory. */
export const DEFAULT_WEB_DIST = serverPath('../web/dist');

export class SettingsError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`Invalid settings:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

/** Unset and '' mean the same thing: use the default. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional());

const switch01 = (fallback: '0' | '1') =>
  optional(z.enum(['0', '1'], { error: "must be '0' or '1'" })).transform((v) => (v ?? fallback) === '1');

const port = optional(
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number between 1 and 65535')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be between 1 and 65535').max(65535, 'must be between 1 and 65535')),
);

/** A whole number of `unit`s (plural `units`) from 1 to `max`; `maxNote` follows the maximum in its message. */
const wholeUnits = (unit: string, units: string, max: number, maxNote = '') =>
  optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number of ${units}`)
      .transform(Number)
      .pipe(
        z.number().int().min(1, `must be at least 1 ${unit}`).max(max, `must be at most ${max} ${units}${maxNote}`),
      ),
  );

const url = (what: string) =>
  z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol),
      `must be an http:// or https:// URL ${what}`,
    );

/**
 * Idle keep-alive connections stay open this long by default. Exchanges, Prebid Server and load
 * balancers keep pools of connections to the ad server and reuse one after a quiet spell (most load
 * balancers after up to 60 s, Go's HTTP client 90 s); a server that closes first races their next
 * request on that connection, which then fails (a POST is not retried). Node's own default is 5 s.
 */
const DEFAULT_KEEPALIVE_SECONDS = 65;

const EnvSchema = z.object({
  PORT: port,
  HOST: optional(z.string().trim()),
  DATA_DIR: optional(z.string().trim()),
  DATABASE_URL: optional(
    z
      .string()
      .trim()
      .refine(
        (v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v),
        'must be a postgres:// or postgresql:// URL (leave it unset to use the embedded SQLite file)',
      ),
  ),
  CLICKHOUSE_URL: optional(
    url('(ClickHouse HTTP interface, e.g. http://127.0.0.1:8123; leave it unset to use the embedded DuckDB file)'),
  ),
  REDIS_URL: optional(
    z
      .string()
      .trim()
      .refine(
        (v) => /^rediss?:\/\//.test(v) && URL.canParse(v),
        'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379/0 (leave it unset to keep delivery counters in this process)',
      ),
  ),
  ADPLANE_REDIS_PREFIX: optional(
    z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9_.-]{1,64}:$/,
        'must be 1 to 64 letters, digits, dots, dashes or underscores followed by a colon, e.g. adplane-eu:',
      ),
  ),
  ADPLANE_EDITION: optional(z.enum(EDITIONS, { error: `must be one of ${EDITIONS.join(', ')}` })),
  ADPLANE_LANDING_URL: optional(url('(the page the console logo links to)')),
  ADPLANE_INSIGHT_HUB_URL: optional(url('(the Insight Hub analytics site linked from the V2V console)')),
  ADPLANE_HOST: optional(url('(the public origin of tag URLs, e.g. https://ads.example.com)')),
  ADPLANE_SESSION_SECRET: optional(z.string().min(32, 'must be at least 32 characters long')),
  ADPLANE_SESSION_TTL_HOURS: wholeUnits('hour', 'hours', 24 * 90, ' (90 days)'),
  ADPLANE_API_KEY_RATE_PER_MINUTE: wholeUnits('request', 'requests', 1_000_000),
  ADPLANE_DEMO: switch01('1'),
  ADPLANE_DEMO_PASSWORD: optional(z.string().min(1)),
  ADPLANE_ADMIN_PASSWORD: optional(z.string().min(8, 'must be at least 8 characters long')),
  ADPLANE_ENCRYPT_RESPONSES: switch01('0'),
  ADPLANE_ACCESS_LOG: switch01('0'),
  LOG_LEVEL: optional(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })),
  ADPLANE_WEB_DIST: optional(z.string().trim()),
  ADPLANE_TRUST_PROXY: optional(
    z
      .string()
      .trim()
      .regex(
        /^(0|1|[0-9a-fA-F.:/,\s]+)$/,
        "must be '0', '1' or a comma-separated list of proxy addresses (CIDR allowed)",
      )
      .superRefine((v, ctx) => {
        if (v === '0' || v === '1') return;
        try {
          // the spellings the other address decisions read (http/addressRanges.ts), and what proxy-addr compiles
          addressRanges(
            v
              .split(',')
              .map((e) => e.trim())
              .filter(Boolean),
          );
          proxyTrust(v);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `must be '0', '1' or a comma-separated list of proxy addresses (CIDR allowed): ${(error as Error).message}`,
          });
        }
      }),
  ),
  ADPLANE_METRICS_ALLOW: optional(
    z
      .string()
      .trim()
      .superRefine((v, ctx) => {
        try {
          parseAllowList(v);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `must be 'none' or a comma-separated list of addresses or CIDR ranges: ${(error as Error).message}`,
          });
        }
      }),
  ),
  ADPLANE_REPORT_FILES_AT_ONCE: wholeUnits('file', 'files', 64),
  ADPLANE_REPORT_FILES_PER_USER: wholeUnits('file', 'files', 100),
  ADPLANE_REPORT_FILES_THREAD: switch01('1'),
  ADPLANE_SHUTDOWN_GRACE_SECONDS: wholeUnits('second', 'seconds', 600),
  ADPLANE_KEEPALIVE_SECONDS: wholeUnits('second', 'seconds', 3600),
  ADPLANE_STATS_FLUSH_SECONDS: wholeUnits('second', 'seconds', 300),
  ADPLANE_CONFIG_POLL_MS: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'must be a whole number of milliseconds')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(50, 'must be at least 50 milliseconds')
          .max(3_600_000, 'must be at most 3600000 milliseconds (an hour)'),
      ),
  ),
  ADPLANE_METRICS_TOKEN: optional(z.string().trim().min(16, 'must be at least 16 characters long')),
  ADPLANE_ADSTXT_ALLOW_PRIVATE: switch01('0'),
  ADPLANE_DEMAND_ALLOW_PRIVATE: switch01('0'),
  ADPLANE_ALLOW_SELF_DEMAND: switch01('0'),
  ADPLANE_CURRENCY_RATES: optional(
    z
      .string()
      .trim()
      .min(1)
      .refine(
        (v) => /^https?:\/\/\S+$/i.test(v) || existsSync(v),
        "must be an http(s) URL or the path of a readable currency file (Prebid's format)",
      ),
  ),
  ADPLANE_CURRENCY_REFRESH_MINUTES: wholeUnits('minute', 'minutes', 24 * 60),
  ADPLANE_PREBID_SERVER_URL: optional(
    url('(a Prebid Server auction endpoint, e.g. https://pbs.example.com/openrtb2/auction)'),
  ),
  ADPLANE_SMTP_URL: optional(
    z
      .string()
      .trim()
      .refine(
        (v) => /^smtps?:\/\/[^/]/.test(v) && URL.canParse(v),
        'must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587 (leave it unset to turn mail off)',
      ),
  ),
  ADPLANE_MAIL_FROM: optional(z.string().trim()),
  ADPLANE_MAXMIND_DB: optional(
    z
      .string()
      .trim()
      .min(1)
      .refine((p) => existsSync(p), 'must be the path of a readable MaxMind .mmdb file'),
  ),
});

function trustProxyOf(value: string | undefined): boolean | string {
  if (value === undefined || value === '0') return false;
  if (value === '1') return true;
  return value;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = EnvSchema.safeParse(env);
  const ivt = readIvtSettings(env);
  const mailProblem = mailSettingsProblem(env.ADPLANE_SMTP_URL, env.ADPLANE_MAIL_FROM);
  if (!parsed.success || ivt.problems.length || mailProblem) {
    const problems = (parsed.success ? [] : parsed.error.issues).map((issue) => {
      const variable = String(issue.path[0] ?? '(environment)');
      const raw = env[variable];
      const shown =
        raw === undefined
          ? ''
          : ` (got '${variable.includes('PASSWORD') || variable.includes('SECRET') || variable.includes('TOKEN') || variable === 'ADPLANE_SMTP_URL' ? '***' : raw}')`;
      return { variable, message: `${issue.message}${shown}` };
    });
    for (const p of ivt.problems)
      problems.push({ variable: p.variable, message: `${p.message} (got '${env[p.variable] ?? ''}')` });
    if (mailProblem && !problems.some((p) => p.variable === mailProblem.variable)) problems.push(mailProblem);
    throw new SettingsError(problems);
  }
  const e = parsed.data;
  const port = e.PORT ?? 8080;
  const host = e.HOST ?? '127.0.0.1';
  return {
    port,
    host,
    dataDir: resolve(process.cwd(), e.DATA_DIR ?? './data'),
    databaseUrl: e.DATABASE_URL ?? null,
    clickhouseUrl: e.CLICKHOUSE_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    redisPrefix: e.ADPLANE_REDIS_PREFIX ?? 'adplane:',
    edition: e.ADPLANE_EDITION ?? 'default',
    landingUrl: e.ADPLANE_LANDING_URL ?? '',
    insightHubUrl: e.ADPLANE_INSIGHT_HUB_URL ?? '',
    publicHost: (e.ADPLANE_HOST ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    sessionSecret: e.ADPLANE_SESSION_SECRET ?? null,
    sessionTtlHours: e.ADPLANE_SESSION_TTL_HOURS ?? 24 * 7,
    apiKeyRatePerMinute: e.ADPLANE_API_KEY_RATE_PER_MINUTE ?? 600,
    demo: e.ADPLANE_DEMO,
    demoPassword: e.ADPLANE_DEMO_PASSWORD ?? 'demo',
    adminPassword: e.ADPLANE_ADMIN_PASSWORD ?? null,
    encryptResponses: e.ADPLANE_ENCRYPT_RESPONSES,
    logLevel: e.LOG_LEVEL ?? 'info',
    accessLog: e.ADPLANE_ACCESS_LOG,
    webDist: resolve(process.cwd(), e.ADPLANE_WEB_DIST ?? DEFAULT_WEB_DIST),
    trustProxy: trustProxyOf(e.ADPLANE_TRUST_PROXY),
    metricsAllow: parseAllowList(e.ADPLANE_METRICS_ALLOW),
    metricsToken: e.ADPLANE_METRICS_TOKEN ?? null,
    reportFilesAtOnce: e.ADPLANE_REPORT_FILES_AT_ONCE ?? 2,
    reportFilesPerUser: e.ADPLANE_REPORT_FILES_PER_USER ?? 4,
    reportFilesThread: e.ADPLANE_REPORT_FILES_THREAD,
    shutdownGraceMs: (e.ADPLANE_SHUTDOWN_GRACE_SECONDS ?? 10) * 1000,
    keepAliveMs: (e.ADPLANE_KEEPALIVE_SECONDS ?? DEFAULT_KEEPALIVE_SECONDS) * 1000,
    statsFlushMs: (e.ADPLANE_STATS_FLUSH_SECONDS ?? 5) * 1000,
    configPollMs: e.ADPLANE_CONFIG_POLL_MS ?? 250,
    maxmindDb: e.ADPLANE_MAXMIND_DB ? resolve(process.cwd(), e.ADPLANE_MAXMIND_DB) : null,
    prebidServerUrl: e.ADPLANE_PREBID_SERVER_URL ?? null,
    adsTxtAllowPrivate: e.ADPLANE_ADSTXT_ALLOW_PRIVATE,
    demandAllowPrivate: e.ADPLANE_DEMAND_ALLOW_PRIVATE,
    allowSelfDemand: e.ADPLANE_ALLOW_SELF_DEMAND,
    currencyRates: e.ADPLANE_CURRENCY_RATES
      ? /^https?:\/\//i.test(e.ADPLANE_CURRENCY_RATES)
        ? e.ADPLANE_CURRENCY_RATES
        : resolve(process.cwd(), e.ADPLANE_CURRENCY_RATES)
      : null,
    currencyRefreshMinutes: e.ADPLANE_CURRENCY_REFRESH_MINUTES ?? 60,
    ivt: ivt.settings,
    mail: e.ADPLANE_SMTP_URL && e.ADPLANE_MAIL_FROM ? { smtpUrl: e.ADPLANE_SMTP_URL, from: e.ADPLANE_MAIL_FROM } : null,
  };
}

/** The session cookie is Secure when the public origin is https. */
export function isHttpsHost(settings: Pick<Settings, 'publicHost'>): boolean {
  return settings.publicHost.startsWith('https://');
}

import { z } from 'zod';

/**
 * Schedules of saved reports: a saved report runs daily at an hour, weekly on a day at an hour, or
 * monthly on a date at an hour (a date past the month's end runs on its last day), in a time zone;
 * each run writes a report file to the bell and sends it as CSV and/or XLSX to e-mail addresses
 * and/or a webhook (docs/reports.md, "Schedules").
 */
const SCHEDULE_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
const SCHEDULE_FORMATS = ['csv', 'xlsx'] as const;
/** The most schedules one saved report may have, and addresses one schedule may send to. */
export const SCHEDULES_PER_REPORT_MAX = 5;
const SCHEDULE_EMAILS_MAX = 20;

/** Whether `zone` is an IANA time zone name the runtime knows (Europe/Berlin, America/New_York, UTC). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

const emailAddress = z.string().trim().max(255).pipe(z.email('must be an e-mail address'));
const webhookUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'must be an http(s) URL');

export const ReportScheduleInput = z
  .object({
    frequency: z.enum(SCHEDULE_FREQUENCIES),
    /** The local hour it runs at, 0..23. */
    hour: z.number().int().min(0, 'must be 0..23').max(23, 'must be 0..23'),
    /** Weekly: the day, 0 Sunday .. 6 Saturday. */
    weekday: z.number().int().min(0, 'must be 0..6').max(6, 'must be 0..6').nullable().default(null),
    /** Monthly: the date, 1..31 (29, 30, 31 run on a shorter month's last day). */
    monthDay: z.number().int().min(1, 'must be 1..31').max(31, 'must be 1..31').nullable().default(null),
    /** The IANA time zone the hour is in (its daylight saving time included). */
    timeZone: z.string().trim().refine(isTimeZone, 'must be a time zone such as Europe/Berlin or UTC'),
    formats: z
      .array(z.enum(SCHEDULE_FORMATS))
      .min(1, 'choose CSV, XLSX or both')
      .refine((f) => new Set(f).size === f.length, 'must not repeat a format'),
    emails: z.array(emailAddress).max(SCHEDULE_EMAILS_MAX, `at most ${SCHEDULE_EMAILS_MAX} addresses`).default([]),
    webhookUrl: webhookUrl.nullable().default(null),
    enabled: z.boolean().default(true),
  })
  .superRefine((v, ctx) => {
    if (v.frequency === 'weekly' && v.weekday === null)
      ctx.addIssue({ code: 'custom', path: ['weekday'], message: 'is required for a weekly schedule' });
    if (v.frequency === 'monthly' && v.monthDay === null)
      ctx.addIssue({ code: 'custom', path: ['monthDay'], message: 'is required for a monthly schedule' });
  });
export type ReportScheduleInput = z.input<typeof ReportScheduleInput>;

const instant = z.string().nullable();

/** One notification a run sent or is sending (the outbox's row), as the schedule shows it. */
const ScheduleDelivery = z.object({
  id: z.number().int(),
  kind: z.enum(['email', 'webhook']),
  target: z.string(),
  status: z.enum(['pending', 'sending', 'sent', 'failed']),
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  /** When the next attempt is due (pending rows), ISO. */
  nextAt: z.string(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  sentAt: instant,
});

export const ReportSchedule = z.object({
  id: z.number().int(),
  savedReportId: z.number().int(),
  frequency: z.enum(SCHEDULE_FREQUENCIES),
  hour: z.number().int(),
  weekday: z.number().int().nullable(),
  monthDay: z.number().int().nullable(),
  timeZone: z.string(),
  formats: z.array(z.enum(SCHEDULE_FORMATS)),
  emails: z.array(z.string()),
  webhookUrl: z.string().nullable(),
  enabled: z.boolean(),
  /** The next run, ISO (UTC). */
  nextRunAt: z.string(),
  lastRunAt: instant,
  /** How the last run went: 'ok' (its file written, its notifications queued) or 'failed' (`lastError`). */
  lastOutcome: z.enum(['ok', 'failed']).nullable(),
  lastError: z.string().nullable(),
  /** The report file (saved report id) the last good run wrote. */
  lastFileId: z.number().int().nullable(),
  /** Failed runs in a row (each tried again after 1, 5, 25... minutes, until the next regular run). */
  failures: z.number().int(),
  /** The newest notifications of its runs, newest first. */
  deliveries: z.array(ScheduleDelivery),
});
export type ReportSchedule = z.infer<typeof ReportSchedule>;

/** GET /api/savedReport/{id}/schedules. `mailOn` false: the server has no mail settings, e-mails are not sent. */
export const ReportScheduleList = z.object({ mailOn: z.boolean(), schedules: z.array(ReportSchedule) });
export type ReportScheduleList = z.infer<typeof ReportScheduleList>;

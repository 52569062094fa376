import { type FastifyInstance } from 'fastify';
import { ALERT_METRIC_LABELS, type AlertEpisode, formatAlertValue } from '@adplane/shared';
import {
  clearAlertEpisode,
  dueAlertRules,
  ensureBuiltinRules,
  claimAlertCheck,
  openAlertEpisode,
  openAlertEpisodes,
  type StoredAlertRule,
} from '../store/alerts.js';
import { type Store } from '../store/db.js';
import { checkRule, type Finding } from './evaluate.js';
import { periodicPass } from '../ops/periodicPass.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The api role's alert checks (docs/alerts.md): on a timer; tests call `checkDue` after setting the clock. */
    alerts: AlertChecks;
  }
}

export interface AlertChecks {
  /** Check every rule due now (claiming each first); returns how many this process checked. */
  checkDue(): Promise<number>;
  /** Check now, then every `everyMs` (real time; each check reads the app's clock). */
  start(everyMs?: number): Promise<void>;
  /** Stop the timer and wait for a check under way. */
  stop(): Promise<void>;
}

/** How often the api role looks for due rules; a rule's own interval (5 minutes and up) says when it is due. */
const TICK_MS = 60_000;
/** Rules one pass checks at most; the rest are checked at the next. */
const RULES_A_PASS = 200;

type Event = 'fired' | 'cleared';

/** The message of an episode's opening or closing, for e-mail and chat. */
function messageOf(rule: StoredAlertRule, episode: AlertEpisode, event: Event) {
  const what = `${rule.name}: ${episode.subjectName}`;
  const subject = event === 'fired' ? `Alert fired - ${what}` : `Alert cleared - ${what}`;
  const lines =
    event === 'fired'
      ? [`${what}`, episode.detail, `Fired at ${episode.firedAt}.`]
      : [
          `${what} is back to normal.`,
          episode.clearValue === null
            ? 'Nothing measured holds it open: the rule was turned off, or its window had no traffic of it.'
            : `${ALERT_METRIC_LABELS[rule.metric]} now ${formatAlertValue(rule.metric, episode.clearValue)}.`,
          `Fired at ${episode.firedAt} (${episode.detail}); cleared at ${episode.clearedAt}.`,
        ];
  return { subject, text: lines.join('\n') };
}

/**
 * Put an episode's opening or closing in the outbox, once per episode and event: an e-mail to the
 * rule's addresses, a webhook call to each of its URLs (`text` for chat tools, `alert` for programs).
 */
async function notify(
  app: FastifyInstance,
  db: Store['db'],
  rule: StoredAlertRule,
  episode: AlertEpisode,
  event: Event,
): Promise<void> {
  const { subject, text } = messageOf(rule, episode, event);
  const base = { source: `alert:${rule.id}`, tenantId: rule.tenantId, userId: null };
  if (rule.notify.email.length > 0)
    await app.outbox.enqueue({ ...base, notice: { kind: 'email', to: rule.notify.email, subject, text } }, db);
  for (const url of rule.notify.webhooks)
    await app.outbox.enqueue(
      {
        ...base,
        notice: {
          kind: 'webhook',
          url,
          body: {
            text: `${event === 'fired' ? ':red_circle:' : ':large_green_circle:'} ${subject}\n${episode.detail}`,
            alert: { event, rule: { id: rule.id, name: rule.name, metric: rule.metric }, episode },
          },
        },
      },
      db,
    );
}

/**
 * Bring a rule's episodes in line with one check: open one for each subject found firing with none
 * open, close each open one whose subject is not firing (or not found), and queue their notices in
 * the same transaction, so an episode and its notices are written together or not at all.
 */
async function settle(app: FastifyInstance, rule: StoredAlertRule, findings: Finding[], now: number): Promise<void> {
  const open = await openAlertEpisodes(app.store.db, rule.id);
  const found = new Map(findings.map((f) => [f.subjectId, f]));
  for (const finding of findings) {
    if (!finding.firing || open.has(finding.subjectId)) continue;
    await app.store.db.transaction().execute(async (trx) => {
      const episode = await openAlertEpisode(trx, rule, finding, now);
      if (episode) await notify(app, trx, rule, episode, 'fired');
    });
  }
  for (const [subjectId, { id }] of open) {
    const finding = found.get(subjectId);
    if (!finding?.firing) await clearEpisode(app, rule, id, finding ? finding.value : null, now);
  }
}

async function clearEpisode(
  app: FastifyInstance,
  rule: StoredAlertRule,
  id: number,
  value: number | null,
  now: number,
): Promise<void> {
  await app.store.db.transaction().execute(async (trx) => {
    const episode = await clearAlertEpisode(trx, rule, id, value, now);
    if (episode) await notify(app, trx, rule, episode, 'cleared');
  });
}

/** Close a rule's open episodes (the rule was turned off), each with its notice; nothing measured clears them. */
export async function clearEpisodesOf(app: FastifyInstance, rule: StoredAlertRule): Promise<void> {
  const now = app.clock.now();
  for (const { id } of (await openAlertEpisodes(app.store.db, rule.id)).values())
    await clearEpisode(app, rule, id, null, now);
}

/** The alert checks of the api role: built-in rules given to new tenants, then each due rule checked once. */
export function createAlertChecks(app: FastifyInstance): AlertChecks {
  async function pass(): Promise<number> {
    const now = app.clock.now();
    await ensureBuiltinRules(app.store.db, now);
    let checked = 0;
    for (const rule of await dueAlertRules(app.store.db, now, RULES_A_PASS)) {
      try {
        if (!(await claimAlertCheck(app.store.db, rule, now))) continue;
        checked++;
        await settle(app, rule, await checkRule(app, rule, now), now);
      } catch (error) {
        app.log.error({ err: error, alertRule: rule.id }, 'alert check failed');
      }
    }
    return checked;
  }

  const checks = periodicPass(pass, 0, (error) => app.log.error({ err: error }, 'alert checks failed'));
  return { checkDue: checks.run, start: (everyMs = TICK_MS) => checks.start(everyMs), stop: checks.stop };
}

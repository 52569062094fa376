import { type Clock } from '../../clock.js';
import { Redis } from 'ioredis';
import {
  type ImpressionReplayGuard,
  ReplayGuard,
  replaySlot,
  SharedReplayGuard,
  TRACKING_LIFETIME_HOURS,
} from './replayGuard.js';
import { KeptReplayGuard } from './savedReplay.js';
import { type DeliveryLog } from '../../delivery/types.js';

/**
 * The impression replay guard: with REDIS_URL, shared by every process on that Redis, pipelined per
 * turn of the event loop; without, this process's memory. A cluster worker passes its own (cluster/).
 *
 * In Redis as in a process (edge/tracking/replayGuard.ts), a filled decision's events are bits in
 * pages of its process's consecutive decisions: `SETBIT <prefix>rp:<id prefix>:<page> <bit> 1` answers
 * whether the event was counted already, and `PEXPIRE` keeps the page for the token lifetime after
 * its last event (4 KB a page of 4,096 decisions, against some 90 bytes a key per event). An event
 * key of another form is one `SET <prefix>r:<key> 1 PX <token lifetime> NX`.
 */
export async function openReplayGuard(
  settings: { redisUrl: string | null },
  options: { log: DeliveryLog; prefix: string; file?: string; clock?: Clock },
): Promise<ImpressionReplayGuard> {
  // without Redis: this process's memory, kept across its restarts in `file` (savedReplay.ts)
  if (!settings.redisUrl)
    return options.file
      ? new KeptReplayGuard(options.file, options.log, undefined, clockOf(options.clock))
      : new ReplayGuard();
  const client = new Redis(settings.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(times * 100, 1_000),
  });
  // a failed check is logged by the guard (once per outage)
  client.on('error', () => {});
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect().catch(() => {});
  });
  const ttlMs = TRACKING_LIFETIME_HOURS * 3_600_000;
  const check = async (ids: string[]): Promise<boolean[]> => {
    const pipe = client.pipeline();
    /** Per id, its reply's place in the pipeline and whether it is a SETBIT (0: first time) or a SET NX ('OK': first time). */
    const replyOf: { at: number; bit: boolean }[] = [];
    const touched = new Set<string>();
    let at = 0;
    for (const id of ids) {
      const slot = replaySlot(id);
      if (!slot) {
        pipe.set(`${options.prefix}r:${id}`, '1', 'PX', ttlMs, 'NX');
        replyOf.push({ at: at++, bit: false });
        continue;
      }
      const page = `${options.prefix}rp:${slot.prefix}:${slot.page}`;
      // SETBIT numbers bits from the first byte's highest: the decision's byte, then the event's bit in it
      pipe.setbit(page, slot.at * 8 + Math.log2(slot.bit), 1);
      replyOf.push({ at: at++, bit: true });
      if (!touched.has(page)) {
        touched.add(page);
        pipe.pexpire(page, ttlMs);
        at++;
      }
    }
    const replies = (await pipe.exec()) ?? [];
    return replyOf.map(({ at: i, bit }) => {
      const [error, reply] = replies[i] ?? [new Error('no reply'), null];
      if (error) throw error;
      return bit ? reply === 0 : reply === 'OK';
    });
  };
  return new SharedReplayGuard(check, options.log, async () => {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  });
}

const clockOf = (clock: Clock | undefined): (() => number) | undefined => (clock ? () => clock.now() : undefined);

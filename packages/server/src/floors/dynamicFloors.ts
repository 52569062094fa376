import { type FastifyInstance } from 'fastify';
import { computeFloorTable, RESOURCES } from '@adplane/shared';
import { periodicPass } from '../ops/periodicPass.js';
import { getClearingPrices } from '../stats/queries/getClearingPrices.js';
import { bumpConfigVersion, readConfigVersion } from '../store/configVersion.js';
import {
  claimFloorRun,
  computedFor,
  type DynamicChannel,
  floorStates,
  listDynamicChannels,
  saveFloorTable,
} from '../store/dynamicFloors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The api role's computation of dynamic floors (docs/ad-server.md): on a timer; tests call `runDue` after setting the clock. */
    dynamicFloors: DynamicFloorJob;
  }
}

export interface DynamicFloorJob {
  /** Compute every dynamic channel's floors due now (claiming each first); returns how many this process computed. */
  runDue(): Promise<number>;
  /** Run now, then every `everyMs` (real time; each run reads the app's clock). */
  start(everyMs?: number): Promise<void>;
  /** Stop the timer and wait for a run under way. */
  stop(): Promise<void>;
}

const HOUR_MS = 3_600_000;
/** How often the api role looks for due channels: a channel just set to dynamic (or changed) gets its floors within it. */
const TICK_MS = 60_000;
/** A run is computed a minute into the hour, when the hour just ended has been flushed by every edge (every 5 s). */
const AFTER_HOUR_MS = 60_000;
/** How long a claimed computation holds its channel: a process that stopped mid-run leaves it due again after this. */
const RUN_LEASE_MS = 10 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** When a channel computed at `now` is due again: a minute into the next hour. */
const nextFloorRun = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS + AFTER_HOUR_MS;

/**
 * The dynamic floors of the api role: each live channel in dynamic mode whose floors are due (never
 * computed, its settings or static floor changed since, or its hourly run come) is claimed by one
 * process, its clearing prices read from the stats store, its floor table computed
 * (shared edge/dynamicFloors.ts) and stored; then the config version moves, so every edge's snapshot
 * picks the tables up as it does any config change.
 */
export function createDynamicFloorJob(app: FastifyInstance): DynamicFloorJob {
  async function pass(): Promise<number> {
    const now = app.clock.now();
    const db = app.store.db;
    const channels = await listDynamicChannels(db, app.store.dialect);
    if (!channels.length) return 0;
    const states = await floorStates(
      db,
      channels.map((c) => c.id),
    );
    const leaseUntil = iso(now + RUN_LEASE_MS);
    const claimed: DynamicChannel[] = [];
    for (const channel of channels) {
      const state = states.get(channel.id);
      const due = !state || state.computedFor !== computedFor(channel) || Date.parse(state.nextRunAt) <= now;
      // a run under way in another process holds the channel until its lease runs out
      const held = state?.leasedUntil && Date.parse(state.leasedUntil) > now;
      if (!due || held) continue;
      if (await claimFloorRun(db, channel, iso(now), leaseUntil)) claimed.push(channel);
    }
    if (!claimed.length) return 0;
    let saved = 0;
    // one read of the stats store per window length the claimed channels use
    for (const windowHours of new Set(claimed.map((c) => c.settings.windowHours))) {
      const group = claimed.filter((c) => c.settings.windowHours === windowHours);
      const prices = await getClearingPrices(
        app.stats,
        group.map((c) => c.id),
        windowHours,
        now,
      );
      for (const channel of group) {
        const table = computeFloorTable(channel.settings, channel.floorCpm, prices.get(channel.id) ?? [], iso(now));
        const done = { computedFor: computedFor(channel), table, nextRunAt: iso(nextFloorRun(now)) };
        if (await saveFloorTable(db, channel.id, leaseUntil, done)) saved++;
      }
    }
    if (saved) {
      // the edge's snapshots rebuild on a new config version: at once through the bus, else at their next poll
      await bumpConfigVersion(db);
      try {
        app.configBus.publish(await readConfigVersion(db));
      } catch (error) {
        app.log.warn({ err: error }, 'dynamic floors: change not published, edge processes rely on polling');
      }
    }
    return claimed.length;
  }

  const failed = (error: unknown) => app.log.error({ err: error }, 'dynamic floors: computation failed');
  const passes = periodicPass(pass, 0, failed);
  /** Whether this process runs the job (the api role's loop started). */
  let started = false;
  /** A pass after the one under way (if any), shared by every write that asks meanwhile. */
  const soon = () => {
    if (started) void passes.run().catch(failed);
  };
  // a channel saved through the API is computed at once when that made it due (set to dynamic, its
  // settings changed), rather than at the next tick
  const channelsApi = RESOURCES.channels.api;
  app.addHook('onResponse', async (request, reply) => {
    if (
      (request.method === 'POST' || request.method === 'PUT') &&
      reply.statusCode < 300 &&
      request.url.startsWith(channelsApi)
    )
      soon();
  });

  return {
    runDue: passes.run,
    start(everyMs = TICK_MS) {
      started = true;
      return passes.start(everyMs);
    },
    stop: passes.stop,
  };
}

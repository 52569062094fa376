import { systemClock } from '../clock.js';
import { createHash } from 'node:crypto';
import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { readConfigVersion } from '../store/configVersion.js';
import { type Store } from '../store/db.js';
import { type User, userFromRow } from '../store/users.js';
import { buildSellersDirectory, type SellersDirectory, sellersFileFor, tenantForHost } from './sellers.js';

/**
 * GET /sellers.json (IAB Tech Lab sellers.json 1.0): public, no session. A tenant's host (its domain
 * or a subdomain of it) answers that tenant's sellers; the operator's own host, and any host no
 * tenant claims, answers every tenant's sellers (see ./sellers.ts and docs/supply-chain.md).
 *
 * An edge-plane path (docs/architecture.md): the accounts are read once per config version, not per request.
 * With the edge in the process the version comes from its snapshot (no read at all); a process
 * without it reads the one-row version at most once a second. A failed rebuild keeps the last good
 * files; a stored row that does not parse is skipped.
 */

const SELLERS_JSON_PATH = '/sellers.json';

/** Consumers cache sellers.json (7 days without directives); an hour keeps changes visible the same day. */
const CACHE_CONTROL = 'public, max-age=3600';
const CHECK_EVERY_MS = 1000;

interface Built {
  version: number;
  directory: SellersDirectory;
  /** Serialised files by tenant id (null: the operator's), with their ETag. */
  bodies: Map<number | null, { body: string; etag: string }>;
}

type UsersDb = Store['db'];

/**
 * The accounts sellers.json is made of: tenants and subpublishers (rows that do not parse are
 * skipped); archived ones too with `withArchived` (seller ids are never given to another seller).
 */
/** The key of PostgreSQL's advisory lock that puts seller-id saves one after another (any constant of our own). */
const SELLER_IDS_LOCK = 4_250_001;

/**
 * Every account with a seller id, read inside the transaction that saves a new one (`trx`), after
 * taking the seller-id lock: two saves asking for the same id at once are checked one after the
 * other, so the second sees the first's id, in one process or several. PostgreSQL: an advisory lock
 * held until the transaction ends. SQLite: the transaction itself, which holds the file's write lock
 * from its start (begun IMMEDIATE, ../store/sqliteDialect.ts), so a transaction of another process
 * on the file waits for it to end.
 */
export async function readSellerAccountsForSave(trx: UsersDb, dialect: Store['dialect']): Promise<User[]> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SELLER_IDS_LOCK})`.execute(trx);
  return readSellerAccounts(trx, undefined, { withArchived: true });
}

export async function readSellerAccounts(
  db: UsersDb,
  log?: { warn(obj: object, msg: string): void },
  { withArchived = false } = {},
): Promise<User[]> {
  let query = db
    .withTables<{ users: { archived: number } }>()
    .selectFrom('users')
    .selectAll()
    .where('type', 'in', ['demand', 'sub']);
  if (!withArchived) query = query.where('archived', '=', 0);
  const rows = await query.orderBy('id').execute();
  const users: User[] = [];
  for (const row of rows) {
    try {
      users.push(userFromRow(row as never));
    } catch (error) {
      log?.warn(
        { err: error, userId: (row as { id?: unknown }).id },
        'sellers.json: skipped an account row that does not parse',
      );
    }
  }
  return users;
}

export class SellersJsonCache {
  private built: Built | null = null;
  private checkedAt = 0;
  private pending: Promise<Built> | null = null;

  constructor(
    private readonly db: UsersDb,
    /** The config version the edge's snapshot holds, when the process has an edge. */
    private readonly edgeVersion: () => number | undefined,
    private readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
    private readonly now: () => number = systemClock.now,
  ) {}

  /** The current files: rebuilt when the config version moved. */
  async get(): Promise<Built> {
    const edge = this.edgeVersion();
    if (this.built && edge !== undefined && edge === this.built.version) return this.built;
    if (this.built && edge === undefined && this.now() - this.checkedAt < CHECK_EVERY_MS) return this.built;
    this.pending ??= this.refresh(edge).finally(() => (this.pending = null));
    return this.pending;
  }

  private async refresh(edge: number | undefined): Promise<Built> {
    try {
      const version = edge ?? (await readConfigVersion(this.db));
      this.checkedAt = this.now();
      if (this.built && this.built.version === version) return this.built;
      const directory = buildSellersDirectory(await readSellerAccounts(this.db, this.log));
      // Rows saved before seller ids were checked (or two saves racing): loud, once per rebuild.
      for (const c of directory.conflicts) {
        this.log.warn(
          {
            sellerId: c.sellerId,
            file: c.file === null ? 'operator' : `tenant ${c.file}`,
            listed: c.kept,
            leftOut: c.dropped,
          },
          'sellers.json: two sellers have one seller id; the file lists the first only: give the other an id of its own',
        );
      }
      this.built = { version, directory, bodies: new Map() };
      return this.built;
    } catch (error) {
      if (!this.built) throw error;
      this.log.error({ err: error }, 'sellers.json: rebuild failed, serving the previous files');
      return this.built;
    }
  }
}

function bodyOf(built: Built, host: string, operatorHost: string): { body: string; etag: string } {
  const tenantId = tenantForHost(built.directory, host, operatorHost);
  let cached = built.bodies.get(tenantId);
  if (!cached) {
    const body = JSON.stringify(sellersFileFor(built.directory, host, operatorHost), null, 2);
    cached = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
    built.bodies.set(tenantId, cached);
  }
  return cached;
}

export async function registerSellersJson(app: FastifyInstance): Promise<void> {
  const operatorHost = new URL(app.settings.publicHost).hostname;
  const cache = new SellersJsonCache(
    app.store.db,
    () => (app.hasDecorator('edge') ? app.edge.snapshots.current?.version : undefined),
    app.log,
    () => app.clock.now(),
  );
  app.get(SELLERS_JSON_PATH, async (request, reply) => {
    let answer: { body: string; etag: string };
    try {
      answer = bodyOf(await cache.get(), request.hostname, operatorHost);
    } catch (error) {
      request.log.error({ err: error }, 'sellers.json: no files to serve yet');
      return reply
        .code(503)
        .header('retry-after', '5')
        .header('cache-control', 'no-store')
        .send({ message: 'sellers.json is not available yet: try again in a few seconds' });
    }
    reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', CACHE_CONTROL)
      .header('etag', answer.etag)
      // Crawlers and buyers' tools of any origin read it.
      .header('access-control-allow-origin', '*')
      // The file differs by host.
      .header('vary', 'Host');
    if (noneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
    return reply.send(answer.body);
  });
}

/**
 * Whether an If-None-Match header names `etag` (RFC 9110 13.1.2: `*`, or a list of entity tags
 * compared weakly, `W/` ignored), so that the answer is a 304. A cache or crawler may send several.
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const ours = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === ours);
}

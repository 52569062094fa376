import { type Kysely } from 'kysely';
import { type Settings } from '../settings.js';
import { type Store } from './db.js';
import { type Database } from './schema.js';
import { type NewUser, type User } from './users.js';

/** What a seed step can use and add to; later steps find earlier users by username in `users`. */
export interface SeedContext {
  db: Kysely<Database>;
  /**
   * The store as the resource services see it, bound to the seed's transaction: a step creates rows
   * through entityService (validation, references, activity log) and they commit with the users.
   */
  store: Store;
  settings: Pick<Settings, 'demoPassword' | 'adminPassword'>;
  users: Record<string, User>;
  /**
   * The argon2 hash of `password`, computed once per distinct password in a seed: the demo accounts
   * all sign in with the demo password, and each hash costs a tenth of a second of a core.
   */
  passwordHash(password: string): Promise<string>;
  /** Create an account with this password (hashed with argon2) and remember it for later steps. */
  addUser(input: Omit<NewUser, 'passwordHash'>, password: string): Promise<User>;
  /** A line for main.ts to print once the seed has committed (where to try what was made). */
  tell(line: string): void;
}

/** One part of the demo workspace (DEMO_SEED), run in the seed's transaction. */
export type SeedStep = (ctx: SeedContext) => Promise<void>;

import { type Kysely } from 'kysely';
import { type Database } from '../../store/schema.js';
import { canSignIn, type User, userFromRow } from '../../store/users.js';

/** The active account whose profile API token this is (debug traces accept it instead of a cookie). */
export async function findUserByToken(db: Kysely<Database>, token: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('token', '=', token).executeTakeFirst();
  const user = row ? userFromRow(row) : null;
  return user && canSignIn(user) ? user : null;
}

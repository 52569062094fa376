import { systemClock } from '../clock.js';
import { digestOfSecret, newSecretToken } from './secretTokens.js';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type Kysely } from 'kysely';
import { type Database } from '../store/schema.js';
import { deleteSession, findLiveSession, insertSession, type SessionRecord, touchSession } from '../store/sessions.js';
import { canSignIn, findUserById, type User } from '../store/users.js';
import { type AuthContext } from './guards.js';

const SESSION_COOKIE = 'adplane_sid';

/** A session is touched (expiry slid, cookie re-sent) at most this often, not on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionOptions {
  db: Kysely<Database>;
  ttlMs: number;
  /** Secure cookie: on when the public host is https. */
  secure: boolean;
  now?: () => number;
}

/**
 * Server-side sessions behind an HttpOnly, SameSite=Lax, signed cookie. The cookie carries a random
 * 256-bit token; the table stores only its sha256.
 */
export function createSessions({ db, ttlMs, secure, now = systemClock.now }: SessionOptions) {
  const iso = (ms: number) => new Date(ms).toISOString();

  function setCookie(reply: FastifyReply, token: string) {
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      signed: true,
      maxAge: Math.floor(ttlMs / 1000),
    });
  }

  function clearCookie(reply: FastifyReply) {
    reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  }

  /** The token of the request's cookie when its signature is valid. */
  function tokenOf(request: FastifyRequest): string | null {
    const raw = request.cookies[SESSION_COOKIE];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? unsigned.value : null;
  }

  async function start(request: FastifyRequest, reply: FastifyReply, user: User): Promise<AuthContext> {
    const token = newSecretToken();
    const at = now();
    const session: SessionRecord = {
      id: digestOfSecret(token),
      userId: user.id,
      adminId: null,
      ip: request.ip ?? null,
      userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
      createdAt: iso(at),
      expiresAt: iso(at + ttlMs),
      lastSeenAt: iso(at),
    };
    await insertSession(db, session);
    setCookie(reply, token);
    return { user, adminId: null, sessionId: session.id };
  }

  /**
   * The caller of a request, from its cookie: null when there is no live session, or when its user
   * (or the impersonating admin) has been disabled or archived since; such a session is removed.
   */
  async function resume(request: FastifyRequest, reply: FastifyReply): Promise<AuthContext | null> {
    const token = tokenOf(request);
    if (!token) return null;
    const at = now();
    const session = await findLiveSession(db, digestOfSecret(token), iso(at));
    if (!session) return null;
    const user = await findUserById(db, session.userId);
    const admin = session.adminId === null ? null : await findUserById(db, session.adminId);
    const adminGone = session.adminId !== null && (!admin || !canSignIn(admin) || admin.type !== 'admin');
    if (!user || !canSignIn(user) || adminGone) {
      await deleteSession(db, session.id);
      clearCookie(reply);
      return null;
    }
    if (at - Date.parse(session.lastSeenAt) >= TOUCH_EVERY_MS) {
      await touchSession(db, session.id, iso(at), iso(at + ttlMs));
      setCookie(reply, token);
    }
    return { user, adminId: session.adminId, sessionId: session.id };
  }

  async function end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = tokenOf(request);
    if (token) await deleteSession(db, digestOfSecret(token));
    clearCookie(reply);
  }

  return { start, resume, end, clearCookie };
}

export type Sessions = ReturnType<typeof createSessions>;

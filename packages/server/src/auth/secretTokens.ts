import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets handed out once and kept only as a digest: session cookies, API keys, password-reset
 * links. Each is 256 random bits, so a fast hash is enough to store it (there is nothing to guess
 * slowly, unlike a password).
 */

/** 32 random bytes in base64url. */
export const newSecretToken = (): string => randomBytes(32).toString('base64url');

/** What is stored of a secret: its SHA-256, in hex. */
export const digestOfSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

import { type FastifyInstance } from 'fastify';
import { JSON_ENCRYPT_HEADER, encryptJsonBody } from '@adplane/shared';

const isApi = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

/**
 * Optional response encryption: every JSON answer under /api, errors included, is
 * sent as base64 AES ciphertext with `json-encrypt: 1`; the console decrypts it. Not a security
 * boundary (TLS is); it keeps payloads out of casual view.
 */
export function installResponseEncryption(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isApi(request.url) || typeof payload !== 'string') return payload;
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/json')) return payload;
    reply.header(JSON_ENCRYPT_HEADER, '1');
    reply.header('content-type', 'text/plain; charset=utf-8');
    return encryptJsonBody(payload);
  });
}

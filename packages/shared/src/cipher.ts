import { cbc } from '@noble/ciphers/aes.js';
import { bytesToUtf8, hexToBytes, utf8ToBytes } from '@noble/ciphers/utils.js';

/**
 * Optional response encryption: when the server turns it on, a JSON response carries
 * `json-encrypt: 1` and its body is AES-256-CBC ciphertext, base64-encoded, which the console decrypts
 * and parses. The key and IV are build-time configuration compiled into both server and console; it
 * hides payloads from casual inspection, it is not a security boundary (TLS is).
 */
export const JSON_ENCRYPT_HEADER = 'json-encrypt';

const KEY = hexToBytes('6164706c616e652d636f6e736f6c652d726573706f6e73652d6b65792d323536');
const IV = hexToBytes('6164706c616e652d69762d3132385f31');

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text.trim());
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function encryptJsonBody(json: string): string {
  return toBase64(cbc(KEY, IV).encrypt(utf8ToBytes(json)));
}

export function decryptJsonBody(body: string): string {
  return bytesToUtf8(cbc(KEY, IV).decrypt(fromBase64(body)));
}

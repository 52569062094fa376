import { STATUS_CODES } from 'node:http';
import { type Socket } from 'node:net';

/**
 * The answer to a request node:http could not read (a header block over 16 KB, a malformed request
 * line, a client that took too long to send its head): Fastify's own answer (a 4xx with a JSON body
 * naming the problem), except to a HEAD request, whose answer must not carry a body (RFC 9110
 * section 9.3.2): a client reading it as HEAD would take the body for the next answer and fail to
 * parse it. Nothing is written to a connection already reset or closed.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Client Timeout']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Exceeded maximum allowed HTTP header size']
        : [400, 'Client Error'];
  const reason = STATUS_CODES[status]!;
  // node hands the bytes it failed on as a Buffer (Fastify's types say their JSON form)
  const head = Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  const body = head ? '' : JSON.stringify({ error: reason, message, statusCode: status });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n${head ? '' : 'Content-Type: application/json\r\n'}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

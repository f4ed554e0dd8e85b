import type { Socket } from 'node:net';
import { problemDocument } from '../contract/problemDocument.js';
import { OnejobError } from '../errors/OnejobError.js';

const ANSWERS: Record<string, [number, string, OnejobError]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    new OnejobError('request_invalid', 'The request headers are too large.'),
  ],
  // Node's requestTimeout and headersTimeout: the request (headers, then body) did not
  // arrive in time, so the socket is answered and closed instead of held.
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    new OnejobError('request_timeout', 'The request headers and body were not received in time.'),
  ],
};

/**
 * Bytes Node's HTTP parser rejects (control characters in headers, oversized headers) and
 * requests that time out never reach a route; answer them with a problem document too.
 */
export function clientErrorHandler(error: Error, socket: Socket): void {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, problem] = ANSWERS[code] ?? [
    400,
    'Bad Request',
    new OnejobError('request_invalid', 'The request is not valid HTTP.'),
  ];
  const body = JSON.stringify({ ...problemDocument(problem), status });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

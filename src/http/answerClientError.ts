// Bytes Node's HTTP parser rejects (control characters in headers, oversized headers)
// never reach a route or Fastify's error handler: answer them with a problem document too.
import type { Socket } from 'node:net';
import { OnejobError } from '../errors/OnejobError.js';
import { problemDocument } from '../errors/problemDocument.js';

export function answerClientError(error: Error, socket: Socket): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNRESET' || code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    ...problemDocument(
      new OnejobError(
        'request_invalid',
        tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.',
      ),
    ),
    status,
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

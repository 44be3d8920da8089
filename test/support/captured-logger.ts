// A pino logger whose lines the test keeps, to assert what was (and was never) logged.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export function capturedLogger(level: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

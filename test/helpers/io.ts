import { Writable } from 'node:stream';

/** A stream that keeps what is written to it, for a CLI run's stdout or stderr. */
export function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { stream, text: () => out };
}

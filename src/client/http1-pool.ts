import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/**
 * A minimal HTTP/1.1 client for the API server's request/answer calls: a pool of keep-alive
 * connections, one request at a time on each, the request line, headers and body written at once,
 * the answer parsed straight from the socket's bytes (a status line, headers, then a body by
 * Content-Length, chunked, or until close). Node's http client does much more per request (an
 * IncomingMessage stream, header objects, events): against a local server, 2,000 keep-alive POSTs
 * took about 0.8 s of client CPU through it and 0.15-0.22 s through this (docs/performance.md).
 * Watches stay on Node's http (transport.ts): they are few and long.
 */

export interface Http1Answer {
  readonly status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

export interface Http1Request {
  /** How errors name the request (`GET /api/v1/pods`). */
  readonly label: string;
  readonly method: string;
  /** The path with its query, already encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  readonly payload: string | undefined;
  /** No byte for this long (connecting, sending, or between parts of the answer) fails the request. */
  readonly timeoutMs: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Whether the request may be sent a second time when a reused connection closes before any byte
   * of its answer (the server's idle close racing the request). Only for requests whose repeat does
   * no harm (transport.ts passes retry.ts' isIdempotent): the server may have read and done the first
   * one. A request that is not replayable fails with ECONNRESET instead, as with Node's client.
   */
  readonly replayable: boolean;
  /**
   * Where the body of a 2xx answer goes, its bytes as they arrive (the answer's `text` is then
   * empty): e.g. a ListDecoder that parses a large list while the rest of it is still coming. A throw
   * from it fails the request (and drops the connection). Other answers are read into `text`.
   */
  readonly onBody?: ((chunk: Buffer) => void) | undefined;
}

export interface Http1PoolOptions {
  readonly host: string;
  readonly port: number;
  /** TLS options for https; undefined for plain http. */
  readonly tls: ConnectionOptions | undefined;
  /** Connections at most; requests beyond wait for one to free up. */
  readonly maxSockets: number;
}

/** Answers larger than this in their headers alone are refused (Node's default limit is 16 KiB). */
const MAX_HEADER_BYTES = 64 * 1024;

interface Job {
  readonly req: Http1Request;
  readonly bytes: string;
  readonly resolve: (answer: Http1Answer) => void;
  readonly reject: (err: Error) => void;
  /** Sent again once on a new connection when a reused one closed before any byte of the answer. */
  retried: boolean;
  onAbort?: () => void;
}

const errorWithCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** The request line, headers and body as one string (header values checked for line breaks). */
function serialize(req: Http1Request, host: string): string {
  if (!/^[A-Z]+$/.test(req.method)) throw new TypeError(`invalid HTTP method ${req.method}`);
  if (/[\s]/.test(req.path) || !req.path.startsWith('/'))
    throw new TypeError(`request path contains unescaped characters: ${JSON.stringify(req.path)}`);
  let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.toLowerCase() === 'host') continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      const text = String(v);
      if (/[\r\n\0]/.test(text) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        throw new TypeError(`invalid character in header ${name}`);
      head += `${name}: ${text}\r\n`;
    }
  }
  if (req.payload !== undefined && !('content-length' in req.headers))
    head += `content-length: ${Buffer.byteLength(req.payload)}\r\n`;
  head += '\r\n';
  return req.payload === undefined ? head : head + req.payload;
}

type BodyMode = 'none' | 'length' | 'chunked' | 'close';

/** One keep-alive connection and the parse of the answer it is reading. */
class Connection {
  readonly socket: Socket;
  readonly #pool: Http1Pool;
  /** Answers read to their end on this connection (a reused connection has served one or more). */
  served = 0;
  job: Job | undefined;
  #timer: NodeJS.Timeout | undefined;
  // The answer being read.
  #received = 0;
  #head: Buffer | undefined;
  #status = 0;
  #headers: Record<string, string> = {};
  #mode: BodyMode | undefined;
  #need = 0;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The request's onBody, for a 2xx answer: its body bytes go there instead of #chunks. */
  #sink: ((chunk: Buffer) => void) | undefined;
  /** Chunked: the bytes not yet parsed, and where the parse stands. */
  #rest: Buffer | undefined;
  #chunkLeft = -1;
  #closeAfter = false;
  #done = false;

  constructor(pool: Http1Pool, options: Http1PoolOptions) {
    this.#pool = pool;
    const host = options.host.startsWith('[') ? options.host.slice(1, -1) : options.host;
    this.socket = options.tls
      ? tlsConnect({
          ...options.tls,
          host,
          port: options.port,
          ...(options.tls.servername === undefined && isIP(host) === 0 ? { servername: host } : {}),
        })
      : netConnect({ host, port: options.port });
    this.socket.setNoDelay(true);
    this.socket.setKeepAlive(true, 1000);
    this.socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.socket.on('error', (err) => this.#fail(err));
    this.socket.on('close', () => this.#fail(undefined));
  }

  run(job: Job): void {
    this.job = job;
    this.#received = 0;
    this.#head = undefined;
    this.#status = 0;
    this.#headers = {};
    this.#mode = undefined;
    this.#chunks = [];
    this.#size = 0;
    this.#sink = undefined;
    this.#rest = undefined;
    this.#chunkLeft = -1;
    this.#closeAfter = false;
    this.#done = false;
    this.socket.ref();
    const { timeoutMs, signal } = job.req;
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => {
        this.#finish(new Error(`${job.req.label}: timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
    if (signal) {
      job.onAbort = () => this.#finish(abortError(signal));
      signal.addEventListener('abort', job.onAbort, { once: true });
    }
    this.socket.write(job.bytes);
  }

  #onData(chunk: Buffer): void {
    if (!this.job) {
      // Bytes nobody asked for: the connection cannot be trusted for the next request.
      this.socket.destroy();
      return;
    }
    this.#received += chunk.length;
    this.#timer?.refresh();
    try {
      this.#read(chunk);
    } catch (err) {
      this.#finish(err as Error);
    }
  }

  /** Bytes of the answer: its head until the empty line, then its body. */
  #read(bytes: Buffer): void {
    if (this.#mode !== undefined) {
      this.#body(bytes);
      return;
    }
    const head: Buffer = this.#head ? Buffer.concat([this.#head, bytes]) : bytes;
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_HEADER_BYTES)
        throw errorWithCode('answer headers too large', 'HPE_HEADER_OVERFLOW');
      this.#head = head;
      return;
    }
    this.#head = undefined;
    this.#parseHead(head.toString('latin1', 0, end));
    const rest = head.subarray(end + 4);
    // After an informational answer (100 Continue) the rest is the real answer's head.
    if (this.#mode === undefined) {
      if (rest.length > 0) this.#read(rest);
      return;
    }
    this.#body(rest);
  }

  #parseHead(head: string): void {
    const lines = head.split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
    if (!statusLine)
      throw errorWithCode(`malformed status line ${JSON.stringify(lines[0])}`, 'HPE_INVALID_CONSTANT');
    const status = Number(statusLine[1]);
    if (status >= 100 && status < 200 && status !== 101) return;
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0)
        throw errorWithCode(`malformed header line ${JSON.stringify(line)}`, 'HPE_INVALID_HEADER_TOKEN');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    this.#status = status;
    this.#headers = headers;
    if (status >= 200 && status < 300) this.#sink = this.job?.req.onBody;
    this.#closeAfter = /(?:^|,)\s*close\s*(?:,|$)/i.test(headers.connection ?? '');
    const method = this.job?.req.method;
    if (method === 'HEAD' || status === 204 || status === 304) this.#mode = 'none';
    else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.#mode = 'chunked';
    else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (!Number.isSafeInteger(length) || length < 0)
        throw errorWithCode(
          `invalid content-length ${headers['content-length']}`,
          'HPE_INVALID_CONTENT_LENGTH',
        );
      this.#mode = 'length';
      this.#need = length;
    } else {
      this.#mode = 'close';
      this.#closeAfter = true;
    }
  }

  #body(bytes: Buffer): void {
    switch (this.#mode) {
      case 'none':
        if (bytes.length > 0) this.#closeAfter = true;
        this.#complete();
        return;
      case 'length': {
        const left = this.#need - this.#size;
        if (bytes.length > left) {
          // More than announced: keep what was announced, never reuse this connection.
          this.#closeAfter = true;
          bytes = bytes.subarray(0, left);
        }
        if (bytes.length > 0) {
          this.#append(bytes);
        }
        if (this.#size === this.#need) this.#complete();
        return;
      }
      case 'close':
        if (bytes.length > 0) this.#append(bytes);
        return;
      case 'chunked':
        this.#chunked(bytes);
        return;
      default:
        return;
    }
  }

  /** Body bytes: to the request's onBody (a 2xx answer), else kept for the answer's text. */
  #append(bytes: Buffer): void {
    this.#size += bytes.length;
    if (this.#sink) this.#sink(bytes);
    else this.#chunks.push(bytes);
  }

  /** Chunked transfer coding: `<hex size>[;ext]\r\n<data>\r\n`... `0\r\n[trailers]\r\n`. */
  #chunked(bytes: Buffer): void {
    let buf = this.#rest ? Buffer.concat([this.#rest, bytes]) : bytes;
    this.#rest = undefined;
    for (;;) {
      if (this.#chunkLeft > 0) {
        const take = Math.min(this.#chunkLeft, buf.length);
        if (take > 0) {
          this.#append(buf.subarray(0, take));
          this.#chunkLeft -= take;
          buf = buf.subarray(take);
        }
        if (this.#chunkLeft > 0) return;
        this.#chunkLeft = -2; // the CRLF after the data
      }
      if (this.#chunkLeft === -2) {
        if (buf.length < 2) break;
        if (buf[0] !== 13 || buf[1] !== 10)
          throw errorWithCode('malformed chunk end', 'HPE_INVALID_CHUNK_SIZE');
        buf = buf.subarray(2);
        this.#chunkLeft = -1;
      }
      if (this.#chunkLeft === -3) {
        // Trailers after the last chunk, up to an empty line.
        let end: number; // just past the empty line that ends the answer
        if (buf.length >= 2 && buf[0] === 13 && buf[1] === 10) end = 2;
        else {
          const blank = buf.indexOf('\r\n\r\n');
          if (blank < 0) break;
          end = blank + 4;
        }
        // Bytes after the answer's end: the connection is not reused.
        if (buf.length > end) this.#closeAfter = true;
        this.#complete();
        return;
      }
      const nl = buf.indexOf('\r\n');
      if (nl < 0) {
        if (buf.length > 1024) throw errorWithCode('malformed chunk size', 'HPE_INVALID_CHUNK_SIZE');
        break;
      }
      const sizeText = buf.toString('latin1', 0, nl).split(';')[0]!.trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText))
        throw errorWithCode(`malformed chunk size ${JSON.stringify(sizeText)}`, 'HPE_INVALID_CHUNK_SIZE');
      const size = parseInt(sizeText, 16);
      buf = buf.subarray(nl + 2);
      this.#chunkLeft = size === 0 ? -3 : size;
    }
    if (buf.length > 0) this.#rest = Buffer.from(buf);
  }

  #complete(): void {
    const job = this.job;
    if (!job || this.#done) return;
    const text =
      this.#chunks.length === 0
        ? ''
        : this.#chunks.length === 1
          ? (this.#chunks[0] as Buffer).toString('utf8')
          : Buffer.concat(this.#chunks, this.#size).toString('utf8');
    this.#chunks = [];
    this.served++;
    this.#release(job);
    job.resolve({ status: this.#status, headers: this.#headers, text });
    if (this.#closeAfter) this.socket.destroy();
    else this.#pool.idle(this);
  }

  #release(job: Job): void {
    this.#done = true;
    this.job = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (job.onAbort) job.req.signal?.removeEventListener('abort', job.onAbort);
  }

  /** Ends the current request with `err` and drops the connection. */
  #finish(err: Error): void {
    const job = this.job;
    if (job && !this.#done) {
      this.#release(job);
      job.reject(err);
    }
    this.socket.destroy();
  }

  /** The socket failed or closed: the request in flight fails, unless its answer ends at the close. */
  #fail(err: Error | undefined): void {
    this.#pool.forget(this);
    const job = this.job;
    if (!job || this.#done) return;
    if (err === undefined && this.#mode === 'close') {
      this.#complete();
      return;
    }
    // A reused connection the server closed as the request went out (its idle timeout), no byte of
    // the answer read: a replayable request is sent once more on a new connection.
    if (this.#received === 0 && this.served > 0 && !job.retried && job.req.replayable) {
      this.#release(job);
      job.retried = true;
      this.#pool.dispatch(job);
      return;
    }
    this.#release(job);
    job.reject(
      err ?? errorWithCode(`${job.req.label}: the connection closed before the answer ended`, 'ECONNRESET'),
    );
  }
}

export class Http1Pool {
  readonly #options: Http1PoolOptions;
  readonly #hostHeader: string;
  readonly #connections = new Set<Connection>();
  /** Idle connections, the most recently used last (reused first). */
  readonly #idle: Connection[] = [];
  readonly #queue: Job[] = [];
  #closed = false;

  constructor(options: Http1PoolOptions) {
    this.#options = options;
    const defaultPort = options.tls ? 443 : 80;
    this.#hostHeader = options.port === defaultPort ? options.host : `${options.host}:${options.port}`;
  }

  request(req: Http1Request): Promise<Http1Answer> {
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(errorWithCode('the transport is closed', 'ERR_TRANSPORT_CLOSED'));
        return;
      }
      if (req.signal?.aborted) {
        reject(abortError(req.signal));
        return;
      }
      let bytes: string;
      try {
        bytes = serialize(req, this.#hostHeader);
      } catch (err) {
        reject(err as Error);
        return;
      }
      this.dispatch({ req, bytes, resolve, reject, retried: false });
    });
  }

  /** Runs `job` on an idle connection, a new one, or queues it. */
  dispatch(job: Job): void {
    for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
      // A connection the server closed may still be listed until its 'close' event runs: a request
      // written to it would get no answer and no error, only its timeout.
      if (idle.socket.destroyed || !idle.socket.writable || idle.socket.readableEnded) {
        idle.socket.destroy();
        continue;
      }
      idle.run(job);
      return;
    }
    if (this.#connections.size < this.#options.maxSockets) {
      let connection: Connection;
      try {
        connection = new Connection(this, this.#options);
      } catch (err) {
        // Options the TLS layer refuses (a malformed certificate): this request's error.
        job.reject(err as Error);
        return;
      }
      this.#connections.add(connection);
      connection.run(job);
      return;
    }
    this.#queue.push(job);
    const { signal } = job.req;
    if (signal) {
      job.onAbort = () => {
        const at = this.#queue.indexOf(job);
        if (at >= 0) this.#queue.splice(at, 1);
        job.reject(abortError(signal));
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
    }
  }

  /** A connection finished an answer and can take the next request. */
  idle(connection: Connection): void {
    const next = this.#queue.shift();
    if (next) {
      if (next.onAbort) next.req.signal?.removeEventListener('abort', next.onAbort);
      next.onAbort = undefined;
      connection.run(next);
      return;
    }
    // An idle connection does not keep the process alive (as Node's keep-alive agent).
    connection.socket.unref();
    this.#idle.push(connection);
  }

  /** A connection closed: it leaves the pool; a queued request may take its place. */
  forget(connection: Connection): void {
    if (!this.#connections.delete(connection)) return;
    const at = this.#idle.indexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    const next = this.#closed ? undefined : this.#queue.shift();
    if (next) {
      if (next.onAbort) next.req.signal?.removeEventListener('abort', next.onAbort);
      next.onAbort = undefined;
      this.dispatch(next);
    }
  }

  /** Closes every connection; requests in flight and waiting fail. */
  close(): void {
    this.#closed = true;
    for (const job of this.#queue.splice(0))
      job.reject(errorWithCode('the transport is closed', 'ERR_TRANSPORT_CLOSED'));
    for (const connection of [...this.#connections]) connection.socket.destroy();
    this.#idle.length = 0;
  }
}

/**
 * The webhook server: HTTPS (certificates from a directory, re-read when they change), one handler
 * per path, AdmissionReview v1 and ConversionReview v1 in and out. Bad input never reaches a
 * handler: wrong method, content type, body size, JSON or review version answer 4xx with a message.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kind } from '../../client/kind.ts';
import { createLogger, type Logger } from '../logger.ts';
import type { Registry } from '../metrics.ts';
import {
  close,
  createBoundedServer,
  renewCertificate,
  serverLimits,
  type ServerLimits,
  type ServerTlsOptions,
  type ServingCertificate,
} from '../servers.ts';
import { CERT_FILE, CertificateDir, KEY_FILE, selfSignedCertificate } from '../serving-cert.ts';
import { denied } from './admission.ts';
import { ConversionWebhook, groupKindOf, reviewConversion } from './conversion.ts';
import { provideCopy } from './request-copy.ts';
import { WebhookMetrics } from './metrics.ts';
import { CONVERSION_PATH } from './paths.ts';
import type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionRequest,
  AdmissionResponse,
  ConversionRequest,
  ConversionResponse,
} from './types.ts';

/**
 * Also ServerLimits (headerTimeoutMs, bodyTimeoutMs, maxConnections: what a client may hold of the
 * server) and ServerTlsOptions (minVersion, cipherSuites, tlsOpts).
 */
export interface WebhookServerOptions extends ServerLimits, ServerTlsOptions {
  /** Default 9443. 0 picks a free port (see `port` after start). */
  readonly port?: number;
  /** Default: every interface. */
  readonly host?: string;
  /**
   * A directory with `tls.crt` and `tls.key` (e.g. a mounted cert-manager Secret), re-read every
   * `certPollMs` and swapped in when they change. Default `<tmpdir>/k8s-webhook-server/serving-certs`
   * (controller-runtime's); when it was not given and that directory has no certificate, a
   * self-signed one is served with a warning (local development only: no API server trusts it).
   */
  readonly certDir?: string;
  /** Default 10 s. */
  readonly certPollMs?: number;
  /** Largest AdmissionReview body accepted. Default 7 MiB (controller-runtime's limit). */
  readonly maxAdmissionBytes?: number;
  /** Largest ConversionReview body accepted (a list converts in one review). Default 64 MiB. */
  readonly maxConversionBytes?: number;
  /**
   * How long a handler may take (counted once the body is read) before the request is answered with
   * a 500 refusal and the handler's `signal` aborted. Default 10 s (the API server's default
   * `timeoutSeconds`).
   */
  readonly requestTimeoutMs?: number;
}

/** The default certificate directory, controller-runtime's. */
export const DEFAULT_WEBHOOK_CERT_DIR = join(tmpdir(), 'k8s-webhook-server', 'serving-certs');

/**
 * Answered by every op-gen webhook server with a fixed refusal: op-gen/testing points a probe
 * webhook configuration here to learn when the API server calls the server.
 */
export const WEBHOOK_PROBE_PATH = '/op-gen-webhook-probe';
export const WEBHOOK_PROBE_MESSAGE = 'op-gen webhook probe: the webhook server answers';

const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
const CONVERSION_API_VERSION = 'apiextensions.k8s.io/v1';

type Route =
  | { readonly type: 'admission'; readonly handler: AdmissionHandler; readonly describe: string }
  | { readonly type: 'conversion' };

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface WebhookServerDeps {
  readonly logger?: Logger;
  /** Where the webhook metrics go (the manager's registry). */
  readonly registry?: Registry;
}

export class WebhookServer {
  private readonly options: WebhookServerOptions;
  private readonly log: Logger;
  readonly metrics: WebhookMetrics;
  private readonly routes = new Map<string, Route>();
  private readonly conversions = new Map<string, ConversionWebhook>();
  private server: Server | undefined;
  private certificateDir: CertificateDir | undefined;
  private boundPort: number | undefined;
  /** The certificate (PEM) the server presents. */
  certificate: string | undefined;

  private readonly limits: Required<ServerLimits>;

  constructor(options: WebhookServerOptions = {}, deps: WebhookServerDeps = {}) {
    this.options = options;
    this.limits = serverLimits(options);
    this.log = (deps.logger ?? createLogger()).child({ server: 'webhook' });
    this.metrics = new WebhookMetrics(deps.registry);
    this.routes.set(WEBHOOK_PROBE_PATH, {
      type: 'admission',
      describe: 'probe',
      handler: async (ctx) => denied(ctx.uid, 403, WEBHOOK_PROBE_MESSAGE),
    });
  }

  /** True once a handler other than the probe is registered. */
  get hasHandlers(): boolean {
    return this.routes.size > 1;
  }

  /** The port bound, after start(). */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** Listening and able to answer. */
  get serving(): boolean {
    return this.server?.listening === true;
  }

  /** The paths served (registered admission paths and `/convert`), sorted. */
  get paths(): string[] {
    return [...this.routes.keys()].filter((p) => p !== WEBHOOK_PROBE_PATH).sort();
  }

  /** Serves an admission handler on `path`. */
  registerAdmission(path: string, handler: AdmissionHandler, describe = path): void {
    if (!path.startsWith('/')) throw new Error(`webhook path "${path}" must start with /`);
    const existing = this.routes.get(path);
    if (existing)
      throw new Error(
        `webhook path ${path} is taken already (${existing.type === 'admission' ? existing.describe : 'conversion'})`,
      );
    this.routes.set(path, { type: 'admission', handler, describe });
  }

  /** The conversion webhook of the hub's group/kind (made and served on `/convert` on first use). */
  conversionFor(hub: Kind<unknown>): ConversionWebhook {
    const key = groupKindOf(hub.group, hub.kind);
    const existing = this.conversions.get(key);
    if (existing) {
      if (existing.hub.version !== hub.version)
        throw new Error(
          `conversion of ${hub.kind}.${hub.group}: the hub is ${existing.hub.version} already, not ${hub.version}`,
        );
      return existing;
    }
    const conversion = new ConversionWebhook(hub);
    this.conversions.set(key, conversion);
    this.routes.set(CONVERSION_PATH, { type: 'conversion' });
    return conversion;
  }

  async start(): Promise<void> {
    if (this.server) throw new Error('the webhook server is started already');
    const tls = await this.servingCertificate();
    this.certificate = tls.cert;
    // Headers and body are bounded separately from the handler (bodyTimeoutMs from when the headers
    // are in; the handler's requestTimeoutMs from when the body is): a client that stalls is cut off.
    const server = createBoundedServer(
      (req, res) => this.serve(req, res),
      this.limits,
      tls,
      this.options,
    ) as Server;
    // Longer than the API server's idle-connection timeout (Go's 90 s): the client closes an idle
    // connection first, so a request never races the server closing it (connection reset by peer).
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 9443, this.options.host || undefined, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.log.error('webhook server error', { error: err }));
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    this.certificateDir?.watch((pair) => {
      renewCertificate(server, pair, this.options);
      this.certificate = pair.cert;
    });
    this.log.info('serving webhooks', {
      address: `${this.options.host || '0.0.0.0'}:${this.boundPort}`,
      paths: this.paths,
      certificate: this.certificateDir ? this.certificateDir.dir : 'self-signed',
    });
  }

  async stop(): Promise<void> {
    this.certificateDir?.stop();
    await close(this.server);
  }

  private async servingCertificate(): Promise<ServingCertificate> {
    const given = this.options.certDir;
    const dir = given ?? DEFAULT_WEBHOOK_CERT_DIR;
    if (given !== undefined || (existsSync(join(dir, CERT_FILE)) && existsSync(join(dir, KEY_FILE)))) {
      this.certificateDir = new CertificateDir(dir, {
        logger: this.log,
        purpose: 'webhook',
        ...(this.options.certPollMs ? { pollMs: this.options.certPollMs } : {}),
      });
      return this.certificateDir.load();
    }
    this.log.warn(
      `no ${CERT_FILE}/${KEY_FILE} in ${dir}: serving webhooks with a self-signed certificate, which no API server trusts (local development only; mount a cert-manager certificate there, or point --webhook-cert-dir (ManagerOptions.webhook.certDir) at a folder with ${CERT_FILE} and ${KEY_FILE})`,
    );
    return selfSignedCertificate();
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = this.routes.get(path);
    const write = (reply: Reply, closeAfter = false): void => {
      if (res.headersSent) return;
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...(closeAfter ? { connection: 'close' } : {}),
      });
      res.end(body);
    };
    if (!route) {
      req.resume();
      write({ status: 404, body: { message: `no webhook is served on ${path}` } });
      return;
    }
    const started = performance.now();
    const labels = this.labelsOf(path);
    this.metrics.inFlight.inc(labels);
    const finish = (status: number): void => {
      this.metrics.inFlight.dec(labels);
      this.metrics.requests.inc(this.labelsOf(path, status));
      this.metrics.latency.observe(labels, (performance.now() - started) / 1000);
    };
    this.handle(req, path, route)
      .then((reply) => {
        write(reply);
        finish(reply.status);
      })
      .catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        const message = err instanceof Error ? err.message : String(err);
        if (status >= 500) this.log.error('webhook request failed', { path, error: err });
        else this.log.debug('webhook request refused', { path, status, message });
        // An oversized or stalled body is not read to its end: the connection is closed after the answer.
        const cut = status === 413 || status === 408;
        write({ status, body: { message } }, cut);
        if (cut) res.once('finish', () => req.socket.destroy());
        finish(status);
      });
  }

  private readonly labels = new Map<string, Readonly<Record<string, string>>>();

  /** Frozen label sets, one per path (and code), made once. */
  private labelsOf(path: string, code?: number): Readonly<Record<string, string>> {
    const key = code === undefined ? path : `${path} ${code}`;
    let labels = this.labels.get(key);
    if (!labels) {
      // Keys in sorted order: prom-client prints labels in the order of the object.
      const fresh: Record<string, string> =
        code === undefined ? { webhook: path } : { code: String(code), webhook: path };
      labels = Object.freeze(fresh);
      this.labels.set(key, labels);
    }
    return labels;
  }

  private async handle(req: IncomingMessage, path: string, route: Route): Promise<Reply> {
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} is not allowed; webhooks take POST`);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/json')
      throw new HttpError(415, `content type "${contentType}" is not supported; expected application/json`);
    const limit =
      route.type === 'admission'
        ? (this.options.maxAdmissionBytes ?? 7 * 1024 * 1024)
        : (this.options.maxConversionBytes ?? 64 * 1024 * 1024);
    const text = await readBody(req, limit, this.limits.bodyTimeoutMs);
    const review = parseJson(text);
    return route.type === 'admission'
      ? { status: 200, body: await this.admit(review, text, path, route.handler) }
      : { status: 200, body: await this.convert(review) };
  }

  private async withTimeout<T>(
    what: string,
    run: (signal: AbortSignal) => Promise<T>,
    onTimeout: () => T,
  ): Promise<T> {
    const timeoutMs = this.options.requestTimeoutMs ?? 10_000;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<T>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`${what} did not answer within ${timeoutMs} ms`));
        resolve(onTimeout());
      }, timeoutMs);
    });
    try {
      return await Promise.race([run(controller.signal), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async admit(
    review: unknown,
    text: string,
    path: string,
    handler: AdmissionHandler,
  ): Promise<unknown> {
    checkReview(review, ADMISSION_API_VERSION, 'AdmissionReview', 'admissionReviewVersions: [v1]');
    const request = review.request;
    if (!isObject(request)) throw new HttpError(400, 'the AdmissionReview has no request');
    if (typeof request.uid !== 'string' || request.uid === '')
      throw new HttpError(400, 'the AdmissionReview request has no uid');
    if (!isObject(request.kind) || typeof request.operation !== 'string')
      throw new HttpError(400, 'the AdmissionReview request has no kind or operation');
    const req = request as unknown as AdmissionRequest;
    provideCopy(req, () => (JSON.parse(text) as { request: AdmissionRequest }).request);
    let childLog: Logger | undefined;
    const parentLog = this.log;
    const logOf = (): Logger => (childLog ??= parentLog.child({ webhook: path, uid: req.uid }));
    const response = await this.withTimeout(
      `the webhook handler on ${path}`,
      async (signal) => {
        const ctx = new RequestContext(req, signal, logOf);
        try {
          return await handler(ctx);
        } catch (err) {
          logOf().error('webhook handler failed', { error: err });
          return denied(
            req.uid,
            500,
            `internal error in the webhook handler: ${(err as Error).message ?? String(err)}`,
            {
              reason: 'InternalError',
            },
          );
        }
      },
      () => {
        logOf().error('webhook handler timed out');
        return denied(req.uid, 500, `the webhook handler on ${path} did not answer in time`, {
          reason: 'Timeout',
        });
      },
    );
    const answer: AdmissionResponse = { ...response, uid: req.uid };
    if (!answer.allowed && (answer.status?.code ?? 0) >= 500)
      logOf().error('admission request refused with an internal error', { message: answer.status?.message });
    return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: answer };
  }

  private async convert(review: unknown): Promise<unknown> {
    checkReview(review, CONVERSION_API_VERSION, 'ConversionReview', 'conversionReviewVersions: [v1]');
    const request = review.request;
    if (!isObject(request)) throw new HttpError(400, 'the ConversionReview has no request');
    if (typeof request.uid !== 'string' || request.uid === '')
      throw new HttpError(400, 'the ConversionReview request has no uid');
    if (typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects))
      throw new HttpError(400, 'the ConversionReview request has no desiredAPIVersion or objects');
    const req = request as unknown as ConversionRequest;
    const response = await this.withTimeout<ConversionResponse>(
      'the conversion',
      (signal) => reviewConversion(req, this.conversions, signal),
      () => ({
        uid: req.uid,
        convertedObjects: [],
        result: { status: 'Failure' as const, message: 'the conversion did not finish in time' },
      }),
    );
    if (response.result.status === 'Failure')
      this.log.error('conversion failed', { uid: req.uid, message: response.result.message });
    return { apiVersion: CONVERSION_API_VERSION, kind: 'ConversionReview', response };
  }
}

/** The AdmissionContext of one request (a class: one shape for every request, the logger made on use). */
class RequestContext implements AdmissionContext {
  readonly operation: AdmissionRequest['operation'];
  readonly dryRun: boolean;
  readonly userInfo: AdmissionRequest['userInfo'];
  readonly uid: string;
  readonly kind: AdmissionRequest['kind'];
  readonly resource: AdmissionRequest['resource'];
  readonly subResource: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly signal: AbortSignal;
  readonly request: AdmissionRequest;
  private readonly logOf: () => Logger;

  constructor(req: AdmissionRequest, signal: AbortSignal, logOf: () => Logger) {
    this.operation = req.operation;
    this.dryRun = req.dryRun === true;
    this.userInfo = req.userInfo ?? {};
    this.uid = req.uid;
    this.kind = req.kind;
    this.resource = req.resource;
    this.subResource = req.subResource || undefined;
    this.namespace = req.namespace || undefined;
    this.name = req.name || undefined;
    this.signal = signal;
    this.request = req;
    this.logOf = logOf;
  }

  get log(): Logger {
    return this.logOf();
  }
}

function checkReview(
  review: unknown,
  apiVersion: string,
  kind: string,
  fix: string,
): asserts review is Record<string, unknown> {
  if (!isObject(review)) throw new HttpError(400, `the body is not a ${kind}`);
  if (review.kind !== kind || review.apiVersion !== apiVersion)
    throw new HttpError(
      400,
      `unsupported review ${String(review.kind)} ${String(review.apiVersion)}: this server takes ${kind} ${apiVersion} (set ${fix})`,
    );
}

function parseJson(body: string): unknown {
  if (body.length === 0) throw new HttpError(400, 'the request body is empty');
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new HttpError(400, `the request body is not JSON: ${(err as Error).message}`);
  }
}

/**
 * The body as text: at most `limit` bytes (413 past it) and all of it within `timeoutMs` of the
 * headers (408 after, whatever arrived: a client that sends half a body and goes quiet is cut off).
 */
function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.reject(
      new HttpError(413, `the request body (${declared} bytes) exceeds the limit of ${limit} bytes`),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: HttpError): void => {
      done = true;
      clearTimeout(timer);
      chunks.length = 0;
      reject(err);
    };
    const timer = setTimeout(() => {
      if (!done) {
        fail(
          new HttpError(408, `the request body was not received within ${timeoutMs} ms (${size} bytes came)`),
        );
      }
    }, timeoutMs);
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        fail(new HttpError(413, `the request body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
      }
    });
    req.on('error', (err) => {
      if (!done) fail(new HttpError(400, `reading the request failed: ${err.message}`));
    });
  });
}

import { createHash } from 'node:crypto';
import { isApiError } from '../client/api-error.ts';
import type { Transport } from '../client/transport.ts';
import { realClock, type Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { RequestFilter, ServerReply, ServerRequest } from './servers.ts';

/**
 * Authentication and authorization of /metrics requests with the API server, as controller-runtime's
 * `filters.WithAuthenticationAndAuthorization` does: the bearer token is checked with a TokenReview,
 * then the user it names is asked about `<verb> <path>` with a SubjectAccessReview.
 *
 * The manager's credentials need `create` on `tokenreviews` (authentication.k8s.io) and
 * `subjectaccessreviews` (authorization.k8s.io): `op-gen generate rbac`'s metrics_auth_role.yaml.
 * A scraper needs `get` on the non-resource URL `/metrics`: its metrics_reader_role.yaml.
 */

export interface MetricsAuthOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How long a TokenReview's answer (authenticated or not) is reused. Default 60 s. */
  readonly authenticationTtlMs?: number;
  /** How long an allowed SubjectAccessReview is reused. Default 5 min. */
  readonly allowTtlMs?: number;
  /** How long a denied SubjectAccessReview is reused. Default 30 s. */
  readonly denyTtlMs?: number;
  /** Most entries each cache holds; the least recently used goes first. Default 4096. */
  readonly maxEntries?: number;
  /** Timeout of one review request. Default 10 s. */
  readonly reviewTimeoutMs?: number;
  /** Attempts of a review that fails with a network error, 429 or 5xx. Default 5. */
  readonly attempts?: number;
  /** Delay before the first retry; each later one is 1.5 times longer. Default 500 ms. */
  readonly retryDelayMs?: number;
}

/** The defaults, controller-runtime's (DelegatingAuthenticatorConfig / DelegatingAuthorizerConfig). */
export const METRICS_AUTH_DEFAULTS = {
  authenticationTtlMs: 60_000,
  allowTtlMs: 5 * 60_000,
  denyTtlMs: 30_000,
  maxEntries: 4096,
  reviewTimeoutMs: 10_000,
  attempts: 5,
  retryDelayMs: 500,
} as const;

/** What a TokenReview tells about the token's owner. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The decision on one request: `allowed`, or why not and the HTTP status that says so. */
export type AuthDecision =
  | { readonly status: 200; readonly user: string }
  | { readonly status: 401 }
  | { readonly status: 403; readonly user: string; readonly reason: string }
  | { readonly status: 500; readonly message: string };

interface TokenReviewStatus {
  readonly authenticated?: boolean;
  readonly user?: UserInfo;
  readonly error?: string;
}

interface SubjectAccessReviewStatus {
  readonly allowed?: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}

type Authentication = { readonly user: UserInfo } | { readonly user: undefined };
type Authorization = { readonly allowed: boolean; readonly reason: string };

/** A map with a time to live per entry and a size bound (least recently used out first). */
export class ExpiringLru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly clock: Clock;
  private readonly max: number;

  constructor(max: number, clock: Clock) {
    this.max = max;
    this.clock = clock;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (this.clock.now() >= e.expiresAt) return undefined;
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** `Authorization: Bearer <token>`, read as the API server's bearer token authenticator reads it. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  const [scheme, token] = value.split(' ', 3);
  if (scheme?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token;
}

function retryable(err: unknown): boolean {
  return !isApiError(err) || err.statusCode === 429 || err.statusCode >= 500;
}

function explain(err: unknown): string {
  if (isApiError(err) && err.statusCode === 403)
    return `${err.message} (the manager needs create on tokenreviews.authentication.k8s.io and subjectaccessreviews.authorization.k8s.io: config/rbac/metrics_auth_role.yaml)`;
  return err instanceof Error ? err.message : String(err);
}

/** Decides on /metrics requests; see the file comment. One per manager. */
export class MetricsAuthenticator {
  private readonly transport: Pick<Transport, 'request'>;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly o: Required<Omit<MetricsAuthOptions, 'clock' | 'logger'>>;
  private readonly authentications: ExpiringLru<Authentication>;
  private readonly authorizations: ExpiringLru<Authorization>;
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(transport: Pick<Transport, 'request'>, options: MetricsAuthOptions = {}) {
    this.transport = transport;
    this.clock = options.clock ?? realClock;
    this.log = options.logger;
    this.o = {
      authenticationTtlMs: options.authenticationTtlMs ?? METRICS_AUTH_DEFAULTS.authenticationTtlMs,
      allowTtlMs: options.allowTtlMs ?? METRICS_AUTH_DEFAULTS.allowTtlMs,
      denyTtlMs: options.denyTtlMs ?? METRICS_AUTH_DEFAULTS.denyTtlMs,
      maxEntries: options.maxEntries ?? METRICS_AUTH_DEFAULTS.maxEntries,
      reviewTimeoutMs: options.reviewTimeoutMs ?? METRICS_AUTH_DEFAULTS.reviewTimeoutMs,
      attempts: options.attempts ?? METRICS_AUTH_DEFAULTS.attempts,
      retryDelayMs: options.retryDelayMs ?? METRICS_AUTH_DEFAULTS.retryDelayMs,
    };
    this.authentications = new ExpiringLru(this.o.maxEntries, this.clock);
    this.authorizations = new ExpiringLru(this.o.maxEntries, this.clock);
  }

  /** Entries cached now: [authentications, authorizations]. */
  get cacheSizes(): [number, number] {
    return [this.authentications.size, this.authorizations.size];
  }

  /** The decision on a request. Never throws: an API failure is a 500 (and an error log line). */
  async decide(req: Pick<ServerRequest, 'method' | 'path' | 'headers'>): Promise<AuthDecision> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return { status: 401 };
    // Only the hash of a token is kept (as a cache key); the token itself is never logged.
    const tokenHash = createHash('sha256').update(token).digest('hex');
    let authn: Authentication;
    try {
      authn = await this.authenticate(token, tokenHash);
    } catch (err) {
      this.log?.error('metrics authentication failed: TokenReview', { error: explain(err) });
      return { status: 500, message: 'Authentication failed' };
    }
    if (!authn.user) {
      this.log?.debug('metrics request unauthenticated', { path: req.path });
      return { status: 401 };
    }
    const user = authn.user;
    const verb = req.method.toLowerCase();
    let authz: Authorization;
    try {
      authz = await this.authorize(user, tokenHash, verb, req.path);
    } catch (err) {
      this.log?.error('metrics authorization failed: SubjectAccessReview', {
        user: user.username,
        error: explain(err),
      });
      return { status: 500, message: `Authorization for user ${user.username} failed` };
    }
    if (!authz.allowed) {
      this.log?.debug('metrics request denied', {
        user: user.username,
        verb,
        path: req.path,
        reason: authz.reason,
      });
      return { status: 403, user: user.username, reason: authz.reason };
    }
    return { status: 200, user: user.username };
  }

  /** The decision as a server filter: undefined lets the request through. */
  filter(): RequestFilter {
    return async (req) => {
      const d = await this.decide(req);
      const text = (body: string, status: number): ServerReply => ({
        status,
        body: `${body}\n`,
        contentType: 'text/plain; charset=utf-8',
      });
      switch (d.status) {
        case 200:
          return undefined;
        case 401:
          return text('Unauthorized', 401);
        case 403:
          return text(`Authorization denied for user ${d.user}`, 403);
        case 500:
          return text(d.message, 500);
      }
    };
  }

  private authenticate(token: string, tokenHash: string): Promise<Authentication> {
    const cached = this.authentications.get(tokenHash);
    if (cached) return Promise.resolve(cached);
    return this.once(`authn\0${tokenHash}`, async () => {
      const review = await this.review<{ status?: TokenReviewStatus }>(
        '/apis/authentication.k8s.io/v1/tokenreviews',
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        },
      );
      const status = review.status ?? {};
      const result: Authentication =
        status.authenticated && status.user?.username ? { user: status.user } : { user: undefined };
      this.authentications.set(tokenHash, result, this.o.authenticationTtlMs);
      return result;
    });
  }

  private authorize(user: UserInfo, tokenHash: string, verb: string, path: string): Promise<Authorization> {
    const key = `${tokenHash}\0${verb}\0${path}`;
    const cached = this.authorizations.get(key);
    if (cached) return Promise.resolve(cached);
    return this.once(`authz\0${key}`, async () => {
      const review = await this.review<{ status?: SubjectAccessReviewStatus }>(
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            ...(user.groups ? { groups: user.groups } : {}),
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: { path, verb },
          },
        },
      );
      const status = review.status ?? {};
      const allowed = status.allowed === true && status.denied !== true;
      const result: Authorization = {
        allowed,
        reason: status.reason || status.evaluationError || (allowed ? 'allowed' : 'no RBAC rule allows it'),
      };
      this.authorizations.set(key, result, allowed ? this.o.allowTtlMs : this.o.denyTtlMs);
      return result;
    });
  }

  /** Shares one review between concurrent requests with the same token (and path). */
  private once<T>(key: string, run: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const p = run().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** POSTs a review; retries network errors, 429 and 5xx with backoff (500 ms, x1.5). */
  private async review<T>(path: string, body: unknown): Promise<T> {
    let delay = this.o.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transport.request<T>({
          method: 'POST',
          path,
          body,
          signal: AbortSignal.timeout(this.o.reviewTimeoutMs),
        });
      } catch (err) {
        if (attempt >= this.o.attempts || !retryable(err)) throw err;
        this.log?.debug('review failed; retrying', { path, attempt, error: explain(err) });
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, delay));
        delay *= 1.5;
      }
    }
  }
}

import type { Server } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { defaultCredentialSource } from '../client/static-credentials.ts';
import { checkDefaultKubeConfig } from '../client/kubeconfig-check.ts';
import type { Kind } from '../client/kind.ts';
import type { ObjectLike } from '../client/resource-client.ts';
import { Transport, type ResponseObserver } from '../client/transport.ts';
import {
  RunnableGroup,
  RunnableGroups,
  ShutdownDeadline,
  type AddOptions,
  type ManagedRunnable,
  type Runnable,
  type RunnableFunction,
} from './runnables.ts';
import { ControllerBuilder, type BuilderHost } from './builder.ts';
import { InformerCache } from './cache.ts';
import { Controller, type ControllerOptions, type Reconciler } from './controller.ts';
import { KubeEventRecorder } from './events.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { createLogger, type Logger, type LogLevel } from './logger.ts';
import { MetricsAuthenticator, type MetricsAuthOptions } from './metrics-auth.ts';
import { RuntimeMetrics } from './metrics.ts';
import { ReconcileClient } from './reconcile-client.ts';
import {
  close,
  listen,
  metricsHandler,
  parseBindAddress,
  probeHandler,
  type Check,
  type RequestFilter,
  type ServerLimits,
  type ServerTlsOptions,
  type ServingCertificate,
  renewCertificate,
} from './servers.ts';
import { CertificateDir, selfSignedCertificate } from './serving-cert.ts';
import { ShardingCoordinator, type ShardingOptions } from './sharding/coordinator.ts';
import { WebhookBuilder } from './webhook/builder.ts';
import { WebhookServer, type WebhookServerOptions } from './webhook/server.ts';
import { runtimeTracer } from './tracing.ts';

export interface ManagerOptions {
  /**
   * Default: in-cluster config, else $KUBECONFIG / ~/.kube/config, as client-node's loadFromDefault
   * reads them: in this process when they state the credentials outright (a token, token file, client
   * certificate, user name and password; see defaultCredentialSource), else loaded by client-node in
   * a short-lived child process (exec plugins, auth providers; see childProcessSource) so the manager
   * does not carry client-node's generated API in memory.
   */
  readonly kubeConfig?: KubeConfig;
  /** The kubeconfig context to use with the default loading. */
  readonly context?: string;
  /**
   * Prometheus /metrics, e.g. `:8080`; `0` disables. Default `:8080`, or `:8443` with
   * `metricsSecure`.
   */
  readonly metricsBindAddress?: string;
  /**
   * Serve /metrics over HTTPS, only to callers whose bearer token the API server authenticates
   * (TokenReview) and authorizes for `get /metrics` (SubjectAccessReview): controller-runtime's
   * `SecureServing: true` with `filters.WithAuthenticationAndAuthorization`. The manager's
   * credentials need `op-gen generate rbac`'s metrics-auth-role. Default false (plain HTTP, open).
   */
  readonly metricsSecure?: boolean;
  /**
   * With `metricsSecure`: a directory holding `tls.crt` and `tls.key` (e.g. a mounted cert-manager
   * Secret), re-read when they change. Without it, a self-signed certificate is made at start.
   */
  readonly metricsCertDir?: string;
  /**
   * With `metricsSecure`: TLS of the metrics server (minVersion, default TLSv1.2; cipherSuites;
   * tlsOpts), controller-runtime's metrics `TLSOpts`.
   */
  readonly metricsTls?: ServerTlsOptions;
  /**
   * What a client may hold of the metrics and health servers (header and body time, connections);
   * the webhook server takes its own in `webhook`. Defaults in ServerLimits.
   */
  readonly serverLimits?: ServerLimits;
  /** With `metricsSecure`: cache TTLs and sizes of the token and access reviews (see metrics-auth.ts). */
  readonly metricsAuth?: Omit<MetricsAuthOptions, 'logger'>;
  /** /healthz and /readyz, e.g. `:8081`; `0` disables. Default `:8081`. */
  readonly healthProbeBindAddress?: string;
  readonly leaderElection?: LeaderElectionOptions;
  /**
   * Warm replicas (controller-runtime's `EnableWarmup`): with leader election, every replica starts
   * its informers at start(), not when it wins leadership; their events queue up (one entry per key)
   * in the controllers' queues, whose workers start only on the leader. A new leader then reconciles
   * at once instead of listing every watched kind first. A standby holds the cache's memory and
   * watch connections. Default false.
   */
  readonly warmup?: boolean;
  /** Watch only these namespaces; empty or absent: all. */
  readonly namespaces?: readonly string[];
  readonly logLevel?: LogLevel;
  readonly logger?: Logger;
  /** How long in-flight reconciles may run after SIGTERM before they are aborted. Default 30 s. */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Stop on SIGTERM/SIGINT. Default true. */
  readonly handleSignals?: boolean;
  /** Re-deliver every cached object to the controllers this often. Default: never. */
  readonly syncPeriodMs?: number;
  /**
   * Drop metadata.managedFields from cached objects (less memory and GC; reconcilers rarely read them).
   * Default true; API reads through ctx.client.resource() still return them.
   */
  readonly stripManagedFields?: boolean;
  /**
   * Informers list by watch-list (one watch streams every object, then a bookmark; the API server's
   * WatchList feature, on by default since Kubernetes 1.34; client-go's WatchListClient): objects are
   * stored as their events arrive, for more CPU to sync than list requests (and a slower sync when the
   * API server shares a loaded machine: see docs/performance.md). A server that refuses it is listed
   * instead (logged at debug). Default false: list requests, whose answers are decoded as they arrive
   * (never held whole), which at 100,000 objects take as little memory.
   */
  readonly watchList?: boolean;
  /** Field manager for writes and server-side apply. Default `op-gen-manager`. */
  readonly fieldManager?: string;
  /** Observes every API answer (e.g. to count 403s in an RBAC test). */
  readonly onResponse?: ResponseObserver;
  /**
   * OpenTelemetry tracing (docs/runtime.md "Tracing"): the provider of the reconcile and API
   * request spans. Default: the global one an OpenTelemetry SDK registers; none registered, no spans.
   */
  readonly tracerProvider?: TracerProvider;
  /**
   * Active-active sharding (docs/sharding.md): replicas split the objects of controllers built with
   * `withOptions({ sharded: true })`; the others run on one replica at a time. Replaces leader election.
   */
  readonly sharding?: ShardingOptions;
  /**
   * The webhook server, run when webhooks are registered (`webhookFor`): port (default 9443), host,
   * certDir (`tls.crt`, `tls.key`; the scaffold's `--webhook-cert-dir`), limits and timeout.
   */
  readonly webhook?: WebhookServerOptions;
  /**
   * The API transport to use instead of one made from the kubeconfig: e.g. `op-gen/testing`'s
   * `new FakeApiServer().transport()` to unit-test controllers without a control plane.
   */
  readonly transport?: Transport;
  /**
   * Serve prom-client's process and Node.js metrics (CPU, memory, heap, GC, event-loop lag) next to
   * the runtime's. Default true.
   */
  readonly processMetrics?: boolean;
}

/** start() rejects with this when reconciles had to be aborted at the shutdown deadline. */
export class ShutdownDeadlineError extends Error {
  readonly aborted: number;

  constructor(aborted: number, graceMs: number) {
    super(`${aborted} reconcile(s) still running ${graceMs} ms after shutdown began were aborted`);
    this.name = 'ShutdownDeadlineError';
    this.aborted = aborted;
  }
}

/**
 * Runs controllers: one KubeConfig, a shared informer cache, health and metrics servers, leader
 * election, and graceful shutdown. `await mgr.start()` resolves when the manager has stopped.
 */
export class Manager {
  readonly cache: InformerCache;
  readonly client: ReconcileClient;
  readonly metrics: RuntimeMetrics;
  readonly log: Logger;
  readonly kubeConfig: KubeConfig | undefined;
  private readonly transport: Transport;
  private readonly recorder: KubeEventRecorder;
  private readonly tracer: Tracer;
  private readonly options: ManagerOptions;
  private readonly controllers: Controller<unknown>[] = [];
  /** Runnables added with needLeaderElection: false (every replica) and true (the leader only). */
  private readonly everywhere: RunnableGroup;
  private readonly leaderOnly: RunnableGroup;
  /** Servers, webhooks, runnables, caches, lease and controllers, started in order (runnables.ts). */
  private readonly groups: RunnableGroups;
  /** Reconciles the controllers aborted at the shutdown deadline. */
  private aborted = 0;
  private readonly healthChecks = new Map<string, Check>([['ping', () => true]]);
  private readonly readyChecks = new Map<string, Check>([['ping', () => true]]);
  private elector: LeaderElector | undefined;
  /** With the `sharding` option: the ring membership and the controllers' gates. */
  readonly sharding: ShardingCoordinator | undefined;
  private stopping: Promise<void> | undefined;
  private started = false;
  private readyResolve: () => void = () => {};
  private stoppedResolve: () => void = () => {};
  private stoppedReject: (err: Error) => void = () => {};
  /** Why start() rejects once stopped (leadership lost, reconciles aborted at the deadline). */
  private failure: Error | undefined;
  private signalHandler: (() => void) | undefined;
  private webhooks: WebhookServer | undefined;
  /** Resolves once caches are synced and workers run (after leadership, when enabled). */
  readonly ready: Promise<void>;
  /** Ports the servers bound (useful with port 0). */
  readonly ports: { metrics?: number; health?: number; webhook?: number } = {};
  /** With `metricsSecure`: the certificate (PEM) the metrics server presents, e.g. to pin in a test. */
  metricsCertificate: string | undefined;

  private constructor(kubeConfig: KubeConfig | undefined, transport: Transport, options: ManagerOptions) {
    this.kubeConfig = kubeConfig;
    this.transport = transport;
    this.options = options;
    this.log = options.logger ?? createLogger({ level: options.logLevel ?? 'info' });
    this.tracer = runtimeTracer(options.tracerProvider);
    this.metrics = new RuntimeMetrics();
    if (options.processMetrics !== false) this.metrics.registry.collectDefaults();
    this.cache = new InformerCache(transport, {
      ...(options.namespaces ? { namespaces: options.namespaces } : {}),
      ...(options.syncPeriodMs ? { resyncMs: options.syncPeriodMs } : {}),
      ...(options.stripManagedFields === false ? { stripManagedFields: false } : {}),
      ...(options.watchList ? { watchList: true } : {}),
      logger: this.log,
    });
    this.sharding = options.sharding
      ? new ShardingCoordinator(
          transport,
          this.cache,
          this.metrics.registry,
          this.log,
          options.sharding,
          options.namespaces?.[0] ? { probeNamespace: options.namespaces[0] } : {},
        )
      : undefined;
    const fieldManager = options.fieldManager ?? 'op-gen-manager';
    this.client = new ReconcileClient(transport, this.cache, fieldManager);
    this.recorder = new KubeEventRecorder(transport, fieldManager, this.log);
    this.ready = new Promise((resolve) => (this.readyResolve = resolve));
    const failed = (err: Error): void => {
      this.failure ??= err;
      void this.stop();
    };
    this.everywhere = new RunnableGroup('runnables', this.log, failed);
    this.leaderOnly = new RunnableGroup('leader runnables', this.log, failed);
    this.groups = new RunnableGroups(this.log);
  }

  static async create(options: ManagerOptions = {}): Promise<Manager> {
    if (options.sharding && options.leaderElection?.enabled)
      throw new Error(
        'Manager: sharding and leaderElection exclude each other (unsharded controllers of a sharded manager run on one replica)',
      );
    const transportOptions = {
      userAgent: 'op-gen-manager',
      ...(options.onResponse ? { onResponse: options.onResponse } : {}),
    };
    if (options.transport) return new Manager(options.kubeConfig, options.transport, options);
    if (!options.kubeConfig) checkDefaultKubeConfig();
    const transport = options.kubeConfig
      ? await Transport.fromKubeConfig(options.kubeConfig, transportOptions)
      : await Transport.fromSource(
          await defaultCredentialSource(options.context ? { context: options.context } : {}),
          transportOptions,
        );
    return new Manager(options.kubeConfig, transport, options);
  }

  /** Starts declaring a controller. */
  controller(name: string): ControllerBuilder {
    if (this.controllers.some((c) => c.name === name))
      throw new Error(`a controller named "${name}" exists already`);
    const host: BuilderHost = {
      cache: this.cache,
      registry: this.metrics.registry,
      newController: (n, kind, reconciler, options) => this.newController(n, kind, reconciler, options),
      register: (controller) => this.register(controller),
    };
    return new ControllerBuilder(host, name);
  }

  /**
   * Adds a runnable the manager starts and stops with itself: with `needLeaderElection` (the
   * default) after leadership is won, with the controllers; otherwise at start(), on every replica.
   * Its signal aborts when the manager stops; a rejection stops the manager (start() rejects).
   */
  add(runnable: Runnable | RunnableFunction, options: AddOptions = {}): void {
    if (this.stopping) throw new Error('Manager.add: the manager is stopping');
    (options.needLeaderElection === false ? this.everywhere : this.leaderOnly).add(runnable, options.name);
  }

  private newController<T>(
    name: string,
    kind: Kind<T>,
    reconciler: Reconciler<T>,
    options: ControllerOptions,
  ): Controller<T> {
    const gate = this.sharding?.gateFor(name, kind as Kind<ObjectLike>, options.sharded === true);
    const controller = new Controller<T>({
      name,
      kind,
      reconciler,
      client: this.client,
      recorder: this.recorder,
      logger: this.log,
      metrics: this.metrics,
      options,
      ...(gate ? { gate } : {}),
      cache: this.cache,
      tracer: this.tracer,
    });
    gate?.bind(controller);
    return controller;
  }

  private register(controller: Controller<unknown>): void {
    this.controllers.push(controller);
    if (this.started) controller.start();
  }

  /**
   * Starts declaring the webhooks of a kind (defaulting, validation, conversion with this kind as the
   * hub): `mgr.webhookFor(CronJob).withDefaulter(d).withValidator(v).complete()`. Before start().
   */
  webhookFor<T>(kind: Kind<T>): WebhookBuilder<T> {
    if (this.started || this.stopping)
      throw new Error('webhooks must be registered before the manager starts');
    const server = this.webhookServer;
    return new WebhookBuilder<T>(
      {
        registerAdmission: (path, handler, describe) => server.registerAdmission(path, handler, describe),
        conversionFor: (hub) => server.conversionFor(hub),
      },
      kind,
    );
  }

  /**
   * The webhook server (made on first use), e.g. to serve a raw AdmissionHandler with
   * `registerAdmission(path, handler)`. It runs when anything is registered on it.
   */
  get webhookServer(): WebhookServer {
    this.webhooks ??= new WebhookServer(this.options.webhook ?? {}, {
      logger: this.log,
      registry: this.metrics.registry,
    });
    return this.webhooks;
  }

  /** Makes the cache watch a kind even if no controller does (for ctx.client reads). */
  watch<T extends ObjectLike>(kind: Kind<T>): void {
    this.cache.informersFor(kind);
  }

  addHealthCheck(name: string, check: Check): void {
    this.healthChecks.set(name, check);
  }

  addReadyCheck(name: string, check: Check): void {
    this.readyChecks.set(name, check);
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.started;
  }

  /**
   * Runs until stop() or SIGTERM/SIGINT; rejects if leadership is lost, or if reconciles were still
   * running at the shutdown deadline and had to be aborted (so the process exits non-zero and an
   * orchestrator's logs show it). The groups start in order (runnables.ts GROUP_ORDER): HTTP servers,
   * webhooks, every replica's runnables, caches (unless leadership gates them), the lease, and once
   * leadership is won (at once without leader election) the controllers and leader-only runnables.
   */
  async start(): Promise<void> {
    const stopped = new Promise<void>((resolve, reject) => {
      this.stoppedResolve = resolve;
      this.stoppedReject = reject;
    });
    if (this.options.handleSignals !== false) {
      this.signalHandler = () => {
        this.log.info('signal received; shutting down');
        void this.stop();
      };
      process.once('SIGTERM', this.signalHandler);
      process.once('SIGINT', this.signalHandler);
    }
    this.declareGroups();
    await this.groups.start('httpServers');
    await this.groups.start('webhooks');
    await this.groups.start('others');
    if (!this.cachesNeedLeadership) await this.groups.start('caches');
    await this.groups.start('lease');
    return stopped;
  }

  /** Leader election without warmup: a standby does not list and watch until it leads. */
  private get cachesNeedLeadership(): boolean {
    return this.options.leaderElection?.enabled === true && this.options.warmup !== true;
  }

  private declareGroups(): void {
    this.groups.add('httpServers', this.metricsServer());
    this.groups.add('httpServers', this.healthServer());
    const webhooks = this.webhooks;
    if (webhooks?.hasHandlers) this.groups.add('webhooks', this.webhookRunnable(webhooks));
    this.groups.add('others', this.everywhere);
    if (this.sharding) {
      const sharding = this.sharding;
      this.groups.add('caches', {
        name: 'sharding ring',
        start: () => sharding.start(),
        stop: () => sharding.stop(),
      });
    }
    this.groups.add('caches', {
      name: 'informer cache',
      start: () => {
        this.cache.start();
        if (!this.cachesNeedLeadership && this.options.leaderElection?.enabled)
          void this.cache.waitForSync().then(() => this.log.info('caches warmed; waiting for leadership'));
      },
      stop: () => this.cache.stop(),
    });
    this.groups.add('lease', this.leaseRunnable());
    this.groups.add('leaderElection', {
      name: 'controllers',
      boundsItself: true,
      start: () => {
        for (const c of this.controllers) c.start();
      },
      stop: (deadline) => this.stopControllers(deadline),
    });
    this.groups.add('leaderElection', this.leaderOnly);
  }

  /**
   * The leader lease: without leader election, leadership is had at once. Once leader: the caches
   * (if gated) and their sync, then the controllers and leader-only runnables.
   */
  private leaseRunnable(): ManagedRunnable {
    const le = this.options.leaderElection;
    return {
      name: 'leader election',
      start: async () => {
        if (!le?.enabled) {
          void this.lead();
          return;
        }
        const elector = new LeaderElector(this.transport, le, this.log);
        this.elector = elector;
        this.metrics.leader.set({ name: le.id }, 0);
        void elector.acquire().then(async (won) => {
          if (!won) return;
          this.metrics.leader.set({ name: le.id }, 1);
          await this.lead();
          if ((await elector.holdLeadership()) === 'lost') {
            this.metrics.leader.set({ name: le.id }, 0);
            // stop() settles start(): with this error, it rejects instead of resolving.
            this.failure ??= new Error('leader election lost');
            await this.stop();
          }
        });
      },
      stop: async () => {
        // No longer reconciling: /metrics must not report leadership while the lease is released.
        if (le?.enabled) this.metrics.leader.set({ name: le.id }, 0);
        await this.elector?.release();
      },
    };
  }

  private async lead(): Promise<void> {
    if (this.stopping) return;
    await this.groups.start('caches');
    if (this.stopping) return;
    await this.cache.waitForSync();
    if (this.stopping) return;
    this.started = true;
    this.readyChecks.set('informers', () => this.cache.hasSynced);
    await this.groups.start('leaderElection');
    this.log.info('manager started', { controllers: this.controllers.map((c) => c.name) });
    this.readyResolve();
  }

  /** Stops intake, lets in-flight reconciles finish until the deadline, then flushes the events. */
  private async stopControllers(deadline: ShutdownDeadline): Promise<void> {
    const outcomes = await Promise.all(this.controllers.map((c) => c.stop(deadline.left())));
    this.aborted = outcomes.reduce((n, o) => n + o.aborted, 0);
    this.log.info('controllers stopped', { aborted: this.aborted });
    await settleWithin(this.recorder.flush(), deadline.leftForApi());
  }

  private webhookRunnable(webhooks: WebhookServer): ManagedRunnable {
    return {
      name: 'webhook server',
      start: async () => {
        // Not ready until the webhook server answers: the API server would fail calls meanwhile.
        this.readyChecks.set('webhook', () => webhooks.serving);
        await webhooks.start();
        this.ports.webhook = webhooks.port;
      },
      stop: () => webhooks.stop(),
    };
  }

  /** The metrics server (HTTPS with its certificate watcher when `metricsSecure`); none for `0`. */
  private metricsServer(): ManagedRunnable {
    const secure = this.options.metricsSecure === true;
    const bind = parseBindAddress(this.options.metricsBindAddress ?? (secure ? ':8443' : ':8080'));
    let server: Server | HttpsServer | undefined;
    let certificateDir: CertificateDir | undefined;
    const start = async (): Promise<void> => {
      if (!bind) return;
      let tls: ServingCertificate | undefined;
      let filter: RequestFilter | undefined;
      if (secure) {
        if (this.options.metricsCertDir)
          certificateDir = new CertificateDir(this.options.metricsCertDir, {
            logger: this.log.child({ server: 'metrics' }),
          });
        tls = certificateDir ? await certificateDir.load() : await selfSignedCertificate();
        this.metricsCertificate = tls.cert;
        filter = new MetricsAuthenticator(this.transport, {
          ...this.options.metricsAuth,
          logger: this.log.child({ server: 'metrics' }),
        }).filter();
      }
      const render = () => this.metrics.registry.render();
      const limits = { ...this.options.serverLimits, ...this.options.metricsTls };
      const bound = await listen(bind, metricsHandler(render, filter), tls, limits);
      server = bound.server;
      this.ports.metrics = bound.port;
      const https = server instanceof HttpsServer ? server : undefined;
      if (certificateDir && https)
        certificateDir.watch((pair) => {
          renewCertificate(https, pair, this.options.metricsTls);
          this.metricsCertificate = pair.cert;
        });
      this.log.info('serving metrics', {
        address: `${bind.host}:${bound.port}`,
        secure,
        ...(secure ? { certificate: certificateDir ? certificateDir.dir : 'self-signed' } : {}),
      });
    };
    const stop = (): Promise<void> => {
      certificateDir?.stop();
      return close(server);
    };
    return { name: 'metrics server', start, stop };
  }

  private healthServer(): ManagedRunnable {
    const bind = parseBindAddress(this.options.healthProbeBindAddress ?? ':8081');
    let server: Server | HttpsServer | undefined;
    const start = async (): Promise<void> => {
      if (!bind) return;
      const handler = probeHandler(this.healthChecks, this.readyChecks);
      const bound = await listen(bind, handler, undefined, this.options.serverLimits);
      server = bound.server;
      this.ports.health = bound.port;
      this.log.info('serving health probes', { address: `${bind.host}:${bound.port}` });
    };
    return { name: 'health probe server', start, stop: () => close(server) };
  }

  /**
   * Graceful shutdown: the groups stop in reverse order within one deadline
   * (`gracefulShutdownTimeoutMs`): controllers (stop intake, let in-flight reconciles finish) and
   * leader-only runnables, the lease (released), the caches, every replica's runnables, the webhook
   * server, the HTTP servers; then the transport closes. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.signalHandler) {
        process.off('SIGTERM', this.signalHandler);
        process.off('SIGINT', this.signalHandler);
      }
      const grace = this.options.gracefulShutdownTimeoutMs ?? 30_000;
      await this.groups.stop(new ShutdownDeadline(grace));
      this.transport.close();
      if (this.aborted > 0) {
        this.log.error('reconciles were aborted at the shutdown deadline', {
          aborted: this.aborted,
          gracefulShutdownTimeoutMs: grace,
        });
        this.failure ??= new ShutdownDeadlineError(this.aborted, grace);
      }
      this.log.info('manager stopped');
      if (this.failure) this.stoppedReject(this.failure);
      else this.stoppedResolve();
    })();
    return this.stopping;
  }
}

/** Waits for `work` (if any) at most `ms`; its failure or lateness is the caller's to log elsewhere. */
async function settleWithin(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!work) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

import { apiVersionOf, type Kind } from '../../client/kind.ts';
import { defaultingHandler, forKind, validatingHandler } from './admission.ts';
import type { ConversionWebhook } from './conversion.ts';
import { type SpokeRegistration } from './conversion.ts';
import { webhookPath } from './paths.ts';
import type { AdmissionHandler, Defaulter, SpokeConverter, Validator } from './types.ts';

/** Where a builder puts what it built: the manager's webhook server. */
export interface WebhookHost {
  registerAdmission(path: string, handler: AdmissionHandler, describe: string): void;
  conversionFor(hub: Kind<unknown>): ConversionWebhook;
}

/** One spoke version and how it converts to and from the hub: `spoke(CronJobV2, converter)`. */
export function spoke<S, H>(kind: Kind<S>, converter: SpokeConverter<S, H>): SpokeRegistration<H> {
  return { kind: kind as Kind<unknown>, converter: converter as SpokeConverter<unknown, H> };
}

export interface AdmissionWebhookOptions {
  /** Default: `webhookPath('mutate' | 'validate', kind)`, what `op-gen generate webhook` writes. */
  readonly path?: string;
}

/**
 * Declares the webhooks of one kind, in controller-runtime's `NewWebhookManagedBy(mgr).For(obj)` style:
 *
 * ```ts
 * mgr.webhookFor(CronJob).withDefaulter(new CronJobDefaulter()).withValidator(new CronJobValidator()).complete();
 * mgr.webhookFor(CronJobV1).withConversion(spoke(CronJobV2, v2Converter)).complete(); // CronJobV1 is the hub
 * ```
 */
export class WebhookBuilder<T> {
  private readonly host: WebhookHost;
  private readonly kind: Kind<T>;
  private defaulter: { impl: Defaulter<T>; path: string } | undefined;
  private validator: { impl: Validator<T>; path: string } | undefined;
  private spokes: SpokeRegistration<T>[] | undefined;
  private completed = false;

  constructor(host: WebhookHost, kind: Kind<T>) {
    this.host = host;
    this.kind = kind;
  }

  /** Served on `/mutate-<group>-<version>-<kind>`. */
  withDefaulter(defaulter: Defaulter<T>, options: AdmissionWebhookOptions = {}): this {
    this.defaulter = { impl: defaulter, path: options.path ?? webhookPath('mutate', this.kind) };
    return this;
  }

  /** Served on `/validate-<group>-<version>-<kind>`. */
  withValidator(validator: Validator<T>, options: AdmissionWebhookOptions = {}): this {
    this.validator = { impl: validator, path: options.path ?? webhookPath('validate', this.kind) };
    return this;
  }

  /** This builder's kind is the hub; each spoke converts to and from it. Served on `/convert`. */
  withConversion(...spokes: SpokeRegistration<T>[]): this {
    if (spokes.length === 0)
      throw new Error(`webhook for ${this.describe()}: withConversion needs at least one spoke version`);
    this.spokes = spokes;
    return this;
  }

  /** Registers the webhooks with the manager's webhook server. */
  complete(): void {
    if (this.completed) throw new Error(`webhook for ${this.describe()}: complete() was called already`);
    if (!this.defaulter && !this.validator && !this.spokes)
      throw new Error(
        `webhook for ${this.describe()}: nothing to serve; call withDefaulter, withValidator or withConversion`,
      );
    this.completed = true;
    if (this.defaulter)
      this.host.registerAdmission(
        this.defaulter.path,
        forKind(this.kind, defaultingHandler(this.defaulter.impl)),
        `defaulting webhook for ${this.describe()}`,
      );
    if (this.validator)
      this.host.registerAdmission(
        this.validator.path,
        forKind(this.kind, validatingHandler(this.validator.impl)),
        `validating webhook for ${this.describe()}`,
      );
    if (this.spokes) {
      const conversion = this.host.conversionFor(this.kind as Kind<unknown>);
      for (const s of this.spokes) conversion.addSpoke(s as SpokeRegistration<unknown>);
    }
  }

  private describe(): string {
    return `${this.kind.kind} ${apiVersionOf(this.kind)}`;
  }
}

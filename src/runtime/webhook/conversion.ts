/**
 * Hub-and-spoke conversion of one kind: every version converts to and from the hub, so a review
 * asking for version B of objects stored in A goes A → hub → B (either step skipped when A or B is
 * the hub). Serves apiextensions.k8s.io/v1 ConversionReview requests.
 */
import { apiVersionOf, type Kind } from '../../client/kind.ts';
import type { ConversionRequest, ConversionResponse, SpokeConverter } from './types.ts';

export interface SpokeRegistration<Hub> {
  readonly kind: Kind<unknown>;
  readonly converter: SpokeConverter<unknown, Hub>;
}

interface Meta {
  labels?: unknown;
  annotations?: unknown;
  [key: string]: unknown;
}

interface ObjectJson {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: Meta;
  [key: string]: unknown;
}

/** Thrown for a conversion the webhook cannot do; its message goes to the API server (and the user). */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** `group/kind` of a kind, the key conversion webhooks are found by. */
export function groupKindOf(group: string, kind: string): string {
  return `${group}/${kind}`;
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

export class ConversionWebhook {
  readonly hub: Kind<unknown>;
  private readonly spokes = new Map<string, SpokeConverter<unknown, unknown>>();

  constructor(hub: Kind<unknown>) {
    this.hub = hub;
  }

  get groupKind(): string {
    return groupKindOf(this.hub.group, this.hub.kind);
  }

  /** The versions this webhook converts between, hub first. */
  get versions(): string[] {
    return [this.hub.version, ...this.spokes.keys()];
  }

  addSpoke(spoke: SpokeRegistration<unknown>): void {
    const { kind } = spoke;
    const what = `conversion of ${this.hub.kind}.${this.hub.group}`;
    if (kind.group !== this.hub.group || kind.kind !== this.hub.kind)
      throw new Error(`${what}: spoke ${kind.kind} ${apiVersionOf(kind)} is another kind than the hub`);
    if (kind.version === this.hub.version)
      throw new Error(`${what}: version ${kind.version} is the hub; it cannot be a spoke too`);
    if (this.spokes.has(kind.version))
      throw new Error(`${what}: spoke version ${kind.version} is registered already`);
    this.spokes.set(kind.version, spoke.converter);
  }

  private converter(version: string): SpokeConverter<unknown, unknown> {
    const c = this.spokes.get(version);
    if (!c)
      throw new ConversionError(
        `${this.hub.kind}.${this.hub.group} has no conversion for version ${version} (known: ${this.versions.join(', ')})`,
      );
    return c;
  }

  /** Converts one object to `desiredAPIVersion`; metadata is kept apart from labels and annotations. */
  async convert(object: unknown, desiredAPIVersion: string): Promise<unknown> {
    if (object === null || typeof object !== 'object' || Array.isArray(object))
      throw new ConversionError('an object to convert is not a JSON object');
    const original = object as ObjectJson;
    const from = typeof original.apiVersion === 'string' ? original.apiVersion : '';
    const name = typeof original.metadata?.name === 'string' ? ` "${original.metadata.name}"` : '';
    if (groupOf(from) !== this.hub.group || original.kind !== this.hub.kind)
      throw new ConversionError(
        `object${name} is ${String(original.kind)} ${from || '(no apiVersion)'}, not a ${this.hub.kind}.${this.hub.group}`,
      );
    if (groupOf(desiredAPIVersion) !== this.hub.group)
      throw new ConversionError(`cannot convert ${this.hub.kind}.${this.hub.group} to ${desiredAPIVersion}`);
    const fromVersion = versionOf(from);
    const toVersion = versionOf(desiredAPIVersion);
    if (fromVersion === toVersion) return original;
    // Validate both ends before running user code, so the message names the version at fault.
    const fromConverter = fromVersion === this.hub.version ? undefined : this.converter(fromVersion);
    const toConverter = toVersion === this.hub.version ? undefined : this.converter(toVersion);
    let hub: unknown = structuredClone(original);
    try {
      if (fromConverter) hub = await fromConverter.convertTo(hub);
      if (hub !== null && typeof hub === 'object') (hub as ObjectJson).apiVersion = apiVersionOf(this.hub);
      const out = toConverter ? await toConverter.convertFrom(hub) : hub;
      return this.finish(original, out, desiredAPIVersion);
    } catch (err) {
      if (err instanceof ConversionError) throw err;
      throw new ConversionError(
        `converting ${this.hub.kind}${name} from ${from} to ${desiredAPIVersion} failed: ${(err as Error).message ?? String(err)}`,
      );
    }
  }

  private finish(original: ObjectJson, out: unknown, apiVersion: string): unknown {
    if (out === null || typeof out !== 'object' || Array.isArray(out))
      throw new ConversionError(`the converter to ${apiVersion} returned no object`);
    const result = JSON.parse(JSON.stringify(out)) as ObjectJson;
    const metadata: Meta = { ...structuredClone(original.metadata ?? {}) };
    if (result.metadata) {
      delete metadata.labels;
      delete metadata.annotations;
      if (result.metadata.labels !== undefined) metadata.labels = result.metadata.labels;
      if (result.metadata.annotations !== undefined) metadata.annotations = result.metadata.annotations;
    }
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = result;
    return { apiVersion, kind: original.kind, metadata, ...rest };
  }
}

/** Answers a ConversionReview request from the conversion webhooks by group/kind. */
export async function reviewConversion(
  request: ConversionRequest,
  webhooks: ReadonlyMap<string, ConversionWebhook>,
  signal?: AbortSignal,
): Promise<ConversionResponse> {
  try {
    const converted: unknown[] = [];
    for (const object of request.objects) {
      signal?.throwIfAborted();
      const o = object as ObjectJson | null;
      const apiVersion = typeof o?.apiVersion === 'string' ? o.apiVersion : '';
      const kind = typeof o?.kind === 'string' ? o.kind : '';
      const webhook = webhooks.get(groupKindOf(groupOf(apiVersion), kind));
      if (!webhook)
        throw new ConversionError(
          `no conversion is registered for ${kind || '(no kind)'} ${apiVersion || '(no apiVersion)'}`,
        );
      converted.push(await webhook.convert(object, request.desiredAPIVersion));
    }
    return { uid: request.uid, convertedObjects: converted, result: { status: 'Success' } };
  } catch (err) {
    const message =
      err instanceof ConversionError
        ? err.message
        : `conversion failed: ${err instanceof Error ? err.message : String(err)}`;
    return { uid: request.uid, convertedObjects: [], result: { status: 'Failure', message } };
  }
}

import { OpGenError } from '../../errors.ts';
import type { WebhookMarker } from './markers.ts';
import type { JsonValue } from '../../markers/types.ts';
import { applyWebhookPatch, type AdmissionWebhook } from './patch.ts';

export type { AdmissionWebhook };

/** Where controller-gen points webhooks by default; config/default's namespace and namePrefix replace both. */
export const DEFAULT_SERVICE_NAME = 'webhook-service';
export const DEFAULT_SERVICE_NAMESPACE = 'system';
export const DEFAULT_MUTATING_NAME = 'mutating-webhook-configuration';
export const DEFAULT_VALIDATING_NAME = 'validating-webhook-configuration';

export interface WebhookConfigurationObject {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: AdmissionWebhook[];
}

/** One `@webhook` marker turned into its webhook, with where it came from. */
export interface DeclaredWebhook {
  readonly mutating: boolean;
  readonly webhook: AdmissionWebhook;
  readonly where: string;
}

const OPERATIONS: Record<string, string> = {
  create: 'CREATE',
  update: 'UPDATE',
  delete: 'DELETE',
  connect: 'CONNECT',
  '*': '*',
};

function fail(where: string, message: string, fix: string): never {
  throw new OpGenError(`${where}: @webhook: ${message}. ${fix}`);
}

/** Maps a case-insensitive value onto its API spelling; undefined when absent. */
function oneOf(
  where: string,
  arg: string,
  value: JsonValue | undefined,
  allowed: readonly string[],
): string | undefined {
  if (value === undefined || value === '') return undefined;
  const found = allowed.find((a) => a.toLowerCase() === String(value).toLowerCase());
  if (!found)
    fail(
      where,
      `${arg}="${String(value)}" is not one of ${allowed.join(', ')}`,
      `Write ${arg}=${allowed[0]}`,
    );
  return found;
}

const strings = (value: JsonValue | undefined): string[] =>
  Array.isArray(value) ? value.map((v) => String(v)) : [];

/**
 * The webhook a `@webhook` marker declares, field for field what controller-gen v0.23.0 writes
 * (pkg/webhook: ToMutatingWebhook / ToValidatingWebhook), with its checks made errors naming the
 * marker: path xor url, sideEffects None or NoneOnDryRun, timeoutSeconds 1-30, known verbs.
 */
export function webhookFromMarker(marker: WebhookMarker): DeclaredWebhook {
  const where = `${marker.location.file}:${marker.location.line}`;
  const args = marker.args;
  const mutating = args.mutating === true;
  const path = typeof args.path === 'string' ? args.path : '';
  const url = typeof args.url === 'string' ? args.url : '';
  if ((path === '') === (url === '')) {
    fail(
      where,
      path ? 'has both path= and url=' : 'needs path= (served by the manager) or url= (an external server)',
      'Give exactly one of them',
    );
  }
  if (path && !path.startsWith('/'))
    fail(where, `path="${path}" does not start with /`, `Write path=/${path}`);
  const failurePolicy = oneOf(where, 'failurePolicy', args.failurePolicy, ['Fail', 'Ignore']);
  const matchPolicy = oneOf(where, 'matchPolicy', args.matchPolicy, ['Exact', 'Equivalent']);
  const sideEffects = oneOf(where, 'sideEffects', args.sideEffects, [
    'None',
    'NoneOnDryRun',
    'Some',
    'Unknown',
  ]);
  if (sideEffects === undefined) {
    fail(where, 'sideEffects is required by admissionregistration/v1', 'Add sideEffects=None');
  }
  if (sideEffects === 'Some' || sideEffects === 'Unknown') {
    fail(
      where,
      `sideEffects=${sideEffects} is not allowed in admissionregistration/v1`,
      'Write sideEffects=None or sideEffects=NoneOnDryRun',
    );
  }
  const reinvocationPolicy = oneOf(where, 'reinvocationPolicy', args.reinvocationPolicy, [
    'Never',
    'IfNeeded',
  ]);
  if (reinvocationPolicy && !mutating) {
    fail(where, 'reinvocationPolicy applies to mutating webhooks only', 'Remove it, or set mutating=true');
  }
  const timeout = typeof args.timeoutSeconds === 'number' ? args.timeoutSeconds : 0;
  if (timeout !== 0 && (timeout < 1 || timeout > 30)) {
    fail(where, `timeoutSeconds=${timeout} is outside 1 to 30`, 'The API server accepts 1 to 30 seconds');
  }
  const webhookVersions = strings(args.webhookVersions);
  const unsupported = webhookVersions.find((v) => v !== 'v1');
  if (unsupported)
    fail(
      where,
      `webhookVersions=${unsupported}: only v1 is supported`,
      'Write webhookVersions=v1 or leave it out',
    );
  const operations = strings(args.verbs).map((verb) => {
    const op = OPERATIONS[verb.toLowerCase()];
    if (!op)
      fail(
        where,
        `verbs: "${verb}" is not an admission operation`,
        'Use create, update, delete, connect or *',
      );
    return op;
  });
  const name = String(args.name);
  const servicePort = typeof args.servicePort === 'number' ? args.servicePort : undefined;
  const clientConfig: { [k: string]: JsonValue } = path
    ? {
        service: {
          name:
            typeof args.serviceName === 'string' && args.serviceName
              ? args.serviceName
              : DEFAULT_SERVICE_NAME,
          namespace:
            typeof args.serviceNamespace === 'string' && args.serviceNamespace
              ? args.serviceNamespace
              : DEFAULT_SERVICE_NAMESPACE,
          path,
          ...(servicePort === undefined ? {} : { port: servicePort }),
        },
      }
    : { url };
  const webhook: AdmissionWebhook = {
    name,
    admissionReviewVersions: strings(args.admissionReviewVersions),
    clientConfig,
    ...(failurePolicy ? { failurePolicy } : {}),
    ...(matchPolicy ? { matchPolicy } : {}),
    rules: [
      {
        apiGroups: strings(args.groups).map((g) => (g === 'core' ? '' : g)),
        apiVersions: strings(args.versions),
        operations,
        resources: strings(args.resources),
      },
    ],
    sideEffects,
    ...(timeout ? { timeoutSeconds: timeout } : {}),
    ...(mutating && reinvocationPolicy ? { reinvocationPolicy } : {}),
  };
  const patched =
    args.patch === undefined ? webhook : applyWebhookPatch(webhook, args.patch, mutating, where);
  return { mutating, webhook: patched, where };
}

/** `@webhookconfiguration` markers: the names of the two configuration objects. */
export function configurationNames(markers: readonly WebhookMarker[]): {
  mutating: string;
  validating: string;
} {
  const names = { mutating: DEFAULT_MUTATING_NAME, validating: DEFAULT_VALIDATING_NAME };
  const seen = new Map<boolean, string>();
  for (const marker of markers) {
    const where = `${marker.location.file}:${marker.location.line}`;
    const mutating = marker.args.mutating === true;
    const first = seen.get(mutating);
    if (first) {
      throw new OpGenError(
        `${where}: @webhookconfiguration: a second ${mutating ? 'mutating' : 'validating'} configuration (the first is at ${first}). Keep one.`,
      );
    }
    seen.set(mutating, where);
    if (typeof marker.args.name === 'string' && marker.args.name !== '') {
      if (mutating) names.mutating = marker.args.name;
      else names.validating = marker.args.name;
    }
  }
  return names;
}

/**
 * The configuration objects of config/webhook/manifests.yaml, mutating first, each holding its
 * webhooks sorted by name (as controller-gen sorts them). Two webhooks of one name are an error.
 */
export function webhookConfigurations(
  declared: readonly DeclaredWebhook[],
  names: { mutating: string; validating: string },
): WebhookConfigurationObject[] {
  const out: WebhookConfigurationObject[] = [];
  for (const mutating of [true, false]) {
    const mine = declared.filter((d) => d.mutating === mutating);
    if (mine.length === 0) continue;
    const byName = new Map<string, string>();
    for (const d of mine) {
      const first = byName.get(d.webhook.name);
      if (first) {
        throw new OpGenError(
          `${d.where}: @webhook: a second ${mutating ? 'mutating' : 'validating'} webhook named ${d.webhook.name} (the first is at ${first}). Webhook names must be unique: change name=.`,
        );
      }
      byName.set(d.webhook.name, d.where);
    }
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: { name: mutating ? names.mutating : names.validating },
      webhooks: [...mine]
        .sort((a, b) => (a.webhook.name < b.webhook.name ? -1 : a.webhook.name > b.webhook.name ? 1 : 0))
        .map((d) => d.webhook),
    });
  }
  return out;
}

import { MarkerRegistry } from '../../markers/registry.ts';
import type { ArgSpec, MarkerSpec, ParsedMarker } from '../../markers/types.ts';

/**
 * The webhook generator's markers: controller-gen's `+kubebuilder:webhook` and
 * `+kubebuilder:webhookconfiguration` as JSDoc tags, read by `op-gen generate webhook` from any
 * source file under src/ (on a handler class or in the module's doc comment).
 */
export type WebhookMarker = ParsedMarker<never>;

const list = (help: string, required = false): ArgSpec => ({ type: 'string[]', required, help });
const str = (help: string, required = false): ArgSpec => ({ type: 'string', required, help });

export const webhookMarkerSpecs: readonly MarkerSpec<never>[] = [
  {
    name: 'webhook',
    targets: ['package', 'type'],
    repeatable: true,
    controllerGen: '+kubebuilder:webhook',
    help:
      'One admission webhook of config/webhook/manifests.yaml (a MutatingWebhookConfiguration entry with ' +
      '`mutating=true`, else a ValidatingWebhookConfiguration entry). `op-gen create webhook` writes it on the handler.',
    args: {
      mutating: {
        type: 'bool',
        required: true,
        help: 'true: a mutating (defaulting) webhook; false: validating',
      },
      failurePolicy: str(
        '`Fail` or `Ignore` (case-insensitive): what the API server does when the webhook cannot be reached',
        true,
      ),
      matchPolicy: str('`Exact` or `Equivalent` (case-insensitive); default Equivalent'),
      sideEffects: str('`None` or `NoneOnDryRun` (case-insensitive); required by admissionregistration/v1'),
      timeoutSeconds: { type: 'int', help: 'seconds the API server waits, 1 to 30 (default 10)' },
      groups: list('API groups, `;`-separated; `core` or `""` is the core group, `*` all', true),
      resources: list('resources (lowercase plurals), `;`-separated; subresources as `pods/status`', true),
      verbs: list('operations: `create;update;delete;connect` or `*`', true),
      versions: list('API versions, `;`-separated, or `*`', true),
      name: str('the webhook name, a domain of at least three segments (e.g. `vmemcached-v1.kb.io`)', true),
      path: str(
        'the path the webhook server serves it on (`/mutate-<group>-<version>-<kind>`); excludes `url`',
      ),
      url: str('an external `https://host:port/path` instead of the Service; excludes `path`'),
      serviceName: str('the webhook Service (default `webhook-service`)'),
      serviceNamespace: str('its namespace (default `system`, replaced by config/default)'),
      servicePort: { type: 'int', help: 'the Service port (default: the API server uses 443)' },
      webhookVersions: list('admissionregistration versions to write; only `v1`'),
      admissionReviewVersions: list('AdmissionReview versions the webhook accepts, e.g. `v1`', true),
      reinvocationPolicy: str('`Never` or `IfNeeded` (mutating webhooks)'),
      patch: {
        type: 'json',
        help:
          'a strategic merge patch (JSON) applied to the generated webhook, for fields without an argument: ' +
          '`namespaceSelector`, `objectSelector`, `matchConditions`, ... (`null` removes a field)',
      },
    },
  },
  {
    name: 'webhookconfiguration',
    targets: ['package', 'type'],
    repeatable: true,
    controllerGen: '+kubebuilder:webhookconfiguration',
    help:
      'Names the MutatingWebhookConfiguration (`mutating=true`) or ValidatingWebhookConfiguration object itself ' +
      '(default `mutating-webhook-configuration` / `validating-webhook-configuration`). At most one of each.',
    args: {
      mutating: { type: 'bool', required: true, help: 'which of the two configurations' },
      name: str('the object name'),
    },
  },
];

export const webhookMarkers = new MarkerRegistry<never>(webhookMarkerSpecs);

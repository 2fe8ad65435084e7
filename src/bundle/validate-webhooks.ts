/**
 * `bundle validate`'s checks of the CSV's `spec.webhookdefinitions`: the rules of
 * operator-framework/api's CSV validator (conversion webhooks need AllNamespaces only), of the CSV
 * CRD's schema (required fields, enums, ranges), and the ones OLM applies when it installs the CSV
 * (unique names, rules that leave OLM and webhook configurations alone, a deployment of the install
 * strategy, owned conversion CRDs) — a bundle failing them installs as a Failed CSV.
 */

export interface WebhookDefinition {
  generateName?: string;
  type?: string;
  deploymentName?: string;
  containerPort?: number;
  targetPort?: number | string;
  rules?: { apiGroups?: string[]; resources?: string[] }[];
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  webhookPath?: string;
  conversionCRDs?: string[];
  reinvocationPolicy?: string;
}

export interface WebhookCheckInput {
  readonly file: string;
  readonly definitions: readonly WebhookDefinition[];
  readonly installModes: readonly { type?: string; supported?: boolean }[];
  readonly deploymentNames: readonly string[];
  readonly ownedCrds: readonly string[];
  /** CRDs in manifests/ by name, with `spec.preserveUnknownFields`. */
  readonly crds: ReadonlyMap<string, { preserveUnknownFields?: boolean }>;
}

const TYPES = new Set(['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ConversionWebhook']);

export function checkWebhookDefinitions(
  input: WebhookCheckInput,
  error: (rule: string, message: string) => void,
): void {
  const names = new Set<string>();
  for (const [i, d] of input.definitions.entries()) {
    const at = `${input.file}: spec.webhookdefinitions[${i}]${d.generateName ? ` (${d.generateName})` : ''}`;
    if (!d.generateName) error('csv-webhook-fields', `${at}: generateName is required`);
    else if (names.has(d.generateName)) {
      error(
        'csv-webhook-unique-name',
        `${at}: generateName ${d.generateName} is used twice; OLM fails the CSV`,
      );
    }
    if (d.generateName) names.add(d.generateName);
    if (!d.type || !TYPES.has(d.type)) {
      error('csv-webhook-fields', `${at}: type "${d.type ?? ''}" is not one of ${[...TYPES].join(', ')}`);
    }
    if (!d.sideEffects) error('csv-webhook-fields', `${at}: sideEffects is required`);
    else if (d.sideEffects !== 'None' && d.sideEffects !== 'NoneOnDryRun') {
      error(
        'csv-webhook-fields',
        `${at}: sideEffects ${d.sideEffects} is not allowed (None or NoneOnDryRun)`,
      );
    }
    if (!d.admissionReviewVersions?.length)
      error('csv-webhook-fields', `${at}: admissionReviewVersions is required`);
    if (
      d.containerPort !== undefined &&
      !(Number.isInteger(d.containerPort) && d.containerPort >= 1 && d.containerPort <= 65535)
    ) {
      error('csv-webhook-fields', `${at}: containerPort ${d.containerPort} is not a port (1-65535)`);
    }
    if (d.timeoutSeconds !== undefined && !(d.timeoutSeconds >= 1 && d.timeoutSeconds <= 30)) {
      error('csv-webhook-fields', `${at}: timeoutSeconds ${d.timeoutSeconds} is outside 1 to 30`);
    }
    if (d.webhookPath !== undefined && !d.webhookPath.startsWith('/')) {
      error('csv-webhook-fields', `${at}: webhookPath "${d.webhookPath}" does not start with /`);
    }
    if (d.reinvocationPolicy !== undefined && d.type !== 'MutatingAdmissionWebhook') {
      error('csv-webhook-fields', `${at}: reinvocationPolicy applies to MutatingAdmissionWebhook only`);
    }
    for (const rule of d.rules ?? []) {
      const groups = rule.apiGroups ?? [];
      if (groups.includes('*'))
        error('csv-webhook-rules', `${at}: webhook rules cannot include all groups (*)`);
      if (groups.includes('operators.coreos.com')) {
        error('csv-webhook-rules', `${at}: webhook rules cannot include the OLM group operators.coreos.com`);
      }
      const resources = rule.resources ?? [];
      if (
        groups.includes('admissionregistration.k8s.io') &&
        resources.some((r) => r === '*' || /^(mutating|validating)webhookconfigurations$/i.test(r))
      ) {
        error(
          'csv-webhook-rules',
          `${at}: webhook rules cannot include Mutating/ValidatingWebhookConfigurations`,
        );
      }
    }
    if (!d.deploymentName || !input.deploymentNames.includes(d.deploymentName)) {
      error(
        'csv-webhook-deployment',
        `${at}: deploymentName "${d.deploymentName ?? ''}" is not a deployment of spec.install (${input.deploymentNames.join(', ') || 'none'}); OLM gives the certificates to that deployment`,
      );
    }
    const conversion = d.conversionCRDs ?? [];
    if (d.type === 'ConversionWebhook' && conversion.length === 0) {
      error('csv-conversion-crds', `${at}: a ConversionWebhook needs conversionCRDs`);
    }
    if (d.type !== 'ConversionWebhook' && conversion.length > 0) {
      error(
        'csv-conversion-crds',
        `${at}: conversionCRDs belong to a ConversionWebhook, not a ${d.type ?? 'webhook without type'}`,
      );
    }
    for (const name of conversion) {
      if (!input.ownedCrds.includes(name)) {
        error('csv-conversion-crds', `${at}: conversion CRD ${name} is not owned by the CSV`);
      }
      if (input.crds.get(name)?.preserveUnknownFields === true) {
        error(
          'csv-conversion-crds',
          `${at}: CRD ${name} sets preserveUnknownFields, which conversion webhooks forbid`,
        );
      }
    }
    if (conversion.length > 0) {
      const onlyAll = input.installModes.every((m) =>
        m.type === 'AllNamespaces' ? m.supported === true : m.supported !== true,
      );
      if (!onlyAll) {
        error(
          'csv-conversion-install-modes',
          `${at}: only the AllNamespaces install mode may be supported when conversionCRDs is present`,
        );
      }
    }
  }
}

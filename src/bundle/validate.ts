import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ANNOTATION_KEYS } from './build.ts';
import type { CrdManifest } from './inputs.ts';
import { readYamlDir, readYamlFile, type Manifest } from './manifests.ts';
import { atOrAfter, removedApi } from './removed-apis.ts';
import { isDnsSubdomain, isSemver, isSemverRange } from './semver.ts';
import { SUPPORTED_KINDS } from './supported-kinds.ts';
import { checkWebhookDefinitions, type WebhookDefinition } from './validate-webhooks.ts';

export type Severity = 'error' | 'warning';

export interface Finding {
  readonly severity: Severity;
  /** A stable id for the rule, e.g. `csv-version-semver`. */
  readonly rule: string;
  readonly message: string;
}

export interface ValidateOptions {
  /** `operatorhub` adds the OperatorHub checks (as errors). */
  readonly optionalSuites?: readonly string[];
}

const INSTALL_MODES = new Set(['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces']);
const ICON_TYPES = new Set(['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml']);
const CHANNELS = new Set(['alpha', 'beta', 'stable', 'candidate', 'fast']);
const CAPABILITIES = new Set([
  'Basic Install',
  'Seamless Upgrades',
  'Full Lifecycle',
  'Deep Insights',
  'Auto Pilot',
]);
const CATEGORIES = new Set([
  'AI/Machine Learning',
  'Application Runtime',
  'Big Data',
  'Cloud Provider',
  'Database',
  'Developer Tools',
  'Drivers and plugins',
  'Integration & Delivery',
  'Logging & Tracing',
  'Modernization & Migration',
  'Monitoring',
  'Networking',
  'OpenShift Optional',
  'Security',
  'Storage',
  'Streaming & Messaging',
]);
const MANDATORY_ANNOTATIONS = [
  ANNOTATION_KEYS.mediatype,
  ANNOTATION_KEYS.manifests,
  ANNOTATION_KEYS.metadata,
  ANNOTATION_KEYS.package,
  ANNOTATION_KEYS.channels,
];
const SIZE_WARNING_BYTES = 1024 * 1024;

interface CsvSpec {
  version?: string;
  replaces?: string;
  skips?: string[];
  installModes?: { type?: string; supported?: boolean }[];
  customresourcedefinitions?: {
    owned?: { name?: string; version?: string; kind?: string }[];
    required?: { name?: string }[];
  };
  description?: string;
  icon?: { base64data?: string; mediatype?: string }[];
  provider?: { name?: string };
  maintainers?: { name?: string; email?: string }[];
  minKubeVersion?: string;
  links?: { name?: string; url?: string }[];
  webhookdefinitions?: WebhookDefinition[];
  install?: {
    spec?: {
      deployments?: {
        name?: string;
        spec?: { template?: { spec?: { containers?: { resources?: { requests?: object } }[] } } };
      }[];
    };
  };
}

function dirSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true })) {
    const p = join(dir, String(entry));
    if (statSync(p).isFile()) total += statSync(p).size;
  }
  return total;
}

/** Checks a bundle directory against the operator-framework validators' rules (see docs/bundle.md). */
export function validateBundle(dir: string, options: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const error = (rule: string, message: string): void =>
    void findings.push({ severity: 'error', rule, message });
  const warn = (rule: string, message: string): void =>
    void findings.push({ severity: 'warning', rule, message });

  const manifestsDir = join(dir, 'manifests');
  if (!existsSync(manifestsDir)) {
    error('bundle-manifests', `${manifestsDir}: missing: a bundle has manifests/ and metadata/`);
    return findings;
  }
  const objects = readYamlDir(manifestsDir, dir);
  for (const o of objects) {
    if (!SUPPORTED_KINDS.has(o.object.kind ?? '')) {
      error('bundle-supported-kinds', `${o.file}: ${o.object.kind} is not a kind OLM installs from a bundle`);
    }
  }
  const csvs = objects.filter((o) => o.object.kind === 'ClusterServiceVersion');
  if (csvs.length !== 1) {
    error(
      'bundle-one-csv',
      `manifests/ holds ${csvs.length} ClusterServiceVersions; a bundle has exactly one`,
    );
    return findings;
  }
  const csvFile = csvs[0]!;
  const csv = csvFile.object;
  const spec = (csv.spec ?? {}) as CsvSpec;
  const name = csv.metadata?.name ?? '';
  if (!name || !isDnsSubdomain(name))
    error('csv-name', `${csvFile.file}: metadata.name "${name}" is not a DNS-1123 subdomain`);
  if (!spec.version || !isSemver(spec.version))
    error('csv-version-semver', `${csvFile.file}: spec.version "${spec.version ?? ''}" is not semver`);
  if (spec.replaces !== undefined && !isDnsSubdomain(spec.replaces)) {
    error('csv-replaces', `${csvFile.file}: spec.replaces "${spec.replaces}" is not a valid CSV name`);
  }
  for (const skip of spec.skips ?? [])
    if (!isDnsSubdomain(skip))
      error('csv-skips', `${csvFile.file}: spec.skips "${skip}" is not a valid CSV name`);
  const skipRange = csv.metadata?.annotations?.['olm.skipRange'];
  if (skipRange !== undefined && !isSemverRange(skipRange)) {
    error('csv-skip-range', `${csvFile.file}: olm.skipRange "${skipRange}" is not a semver range`);
  }
  const modes = spec.installModes ?? [];
  if (modes.length === 0) error('csv-install-modes', `${csvFile.file}: spec.installModes is missing`);
  const types = modes.map((m) => m.type ?? '');
  if (new Set(types).size !== types.length)
    error('csv-install-modes', `${csvFile.file}: spec.installModes has a duplicate type`);
  for (const t of types)
    if (!INSTALL_MODES.has(t)) error('csv-install-modes', `${csvFile.file}: unknown install mode "${t}"`);
  if (modes.length > 0 && !modes.some((m) => m.supported))
    error('csv-install-modes', `${csvFile.file}: no install mode is supported`);

  const owned = spec.customresourcedefinitions?.owned ?? [];
  for (const o of owned) {
    if (!o.name || !o.version || !o.kind)
      error('csv-owned-crd-fields', `${csvFile.file}: an owned CRD entry lacks name, version or kind`);
  }
  let examples: Manifest[] = [];
  const almExamples = csv.metadata?.annotations?.['alm-examples'];
  if (almExamples !== undefined) {
    try {
      const parsed: unknown = JSON.parse(almExamples);
      if (!Array.isArray(parsed)) throw new Error('not an array');
      examples = parsed as Manifest[];
    } catch (err) {
      error(
        'csv-alm-examples',
        `${csvFile.file}: alm-examples is not a JSON array (${(err as Error).message})`,
      );
    }
  }

  const crds = objects.filter((o) => o.object.kind === 'CustomResourceDefinition') as {
    file: string;
    object: CrdManifest;
  }[];
  for (const c of crds) {
    const s = c.object.spec;
    if (
      c.object.apiVersion !== 'apiextensions.k8s.io/v1' ||
      !s?.group ||
      !s.names?.kind ||
      !s.names.plural ||
      !Array.isArray(s.versions) ||
      s.versions.length === 0
    ) {
      error(
        'crd-valid',
        `${c.file}: not a valid apiextensions.k8s.io/v1 CRD (group, names and versions are required)`,
      );
      continue;
    }
    if (s.versions.filter((v) => v.storage).length !== 1)
      error('crd-valid', `${c.file}: exactly one version must be the storage version`);
    if (c.object.metadata?.name !== `${s.names.plural}.${s.group}`) {
      error('crd-valid', `${c.file}: metadata.name must be ${s.names.plural}.${s.group}`);
    }
  }
  const required = new Set((spec.customresourcedefinitions?.required ?? []).map((r) => r.name));
  for (const o of owned) {
    const crd = crds.find((c) => c.object.metadata?.name === o.name);
    if (!crd) {
      error('bundle-owned-crd-present', `${csvFile.file}: owned CRD ${o.name} is not in manifests/`);
      continue;
    }
    const version = crd.object.spec.versions.find((v) => v.name === o.version);
    if (!version || version.served === false)
      error('bundle-owned-crd-present', `${crd.file}: version ${o.version} of ${o.name} is not served`);
    if (crd.object.spec.names.kind !== o.kind || !o.name?.endsWith(`.${crd.object.spec.group}`)) {
      error(
        'bundle-owned-crd-match',
        `${csvFile.file}: owned CRD ${o.name} says kind ${o.kind}; the CRD has kind ${crd.object.spec.names.kind} in group ${crd.object.spec.group}`,
      );
    }
  }
  for (const c of crds) {
    const n = c.object.metadata?.name;
    if (!owned.some((o) => o.name === n) && !required.has(n))
      error('bundle-crd-owned', `${c.file}: CRD ${n} is neither owned nor required by the CSV`);
  }

  checkWebhookDefinitions(
    {
      file: csvFile.file,
      definitions: spec.webhookdefinitions ?? [],
      installModes: modes,
      deploymentNames: (spec.install?.spec?.deployments ?? []).flatMap((d) => (d.name ? [d.name] : [])),
      ownedCrds: owned.flatMap((o) => (o.name ? [o.name] : [])),
      crds: new Map(
        crds.map((c) => [
          c.object.metadata?.name ?? '',
          {
            preserveUnknownFields: (c.object.spec as { preserveUnknownFields?: boolean })
              .preserveUnknownFields,
          },
        ]),
      ),
    },
    error,
  );

  const annotationsFile = join(dir, 'metadata', 'annotations.yaml');
  if (!existsSync(annotationsFile)) {
    error('bundle-annotations', 'metadata/annotations.yaml is missing');
  } else {
    const annotations: Record<string, string> =
      (readYamlFile(annotationsFile, dir)[0]?.object as { annotations?: Record<string, string> } | undefined)
        ?.annotations ?? {};
    for (const key of MANDATORY_ANNOTATIONS) {
      if (!annotations[key]) error('bundle-annotations', `metadata/annotations.yaml: ${key} is missing`);
    }
    const dockerfile = join(dirname(dir), 'bundle.Dockerfile');
    if (existsSync(dockerfile)) {
      const labels = new Map(
        [...readFileSync(dockerfile, 'utf8').matchAll(/^LABEL\s+(\S+?)=(.*)$/gm)].map((m) => [
          m[1]!,
          m[2]!.trim(),
        ]),
      );
      for (const [k, v] of Object.entries(annotations)) {
        if (labels.get(k) !== v)
          error(
            'bundle-dockerfile-labels',
            `bundle.Dockerfile: LABEL ${k} does not match metadata/annotations.yaml ("${v}")`,
          );
      }
    }
    for (const ch of (annotations[ANNOTATION_KEYS.channels] ?? '').split(',').filter((c) => c !== '')) {
      if (!CHANNELS.has(ch))
        warn('good-practice-channel', `channel "${ch}" is not one of ${[...CHANNELS].join(', ')}`);
    }
  }

  // Warnings.
  for (const o of owned) {
    const group = o.name?.split('.').slice(1).join('.');
    if (!examples.some((e) => e.kind === o.kind && (e.apiVersion ?? '').split('/')[0] === group)) {
      warn('csv-example-per-crd', `owned CRD ${o.name} has no example in alm-examples`);
    }
  }
  for (const e of examples) {
    const group = (e.apiVersion ?? '').split('/')[0];
    if (!owned.some((o) => o.kind === e.kind && o.name?.endsWith(`.${group}`))) {
      warn('csv-example-owned', `alm-examples has a ${e.kind} (${e.apiVersion}), which the CSV does not own`);
    }
  }
  if (!spec.description) warn('csv-description', 'spec.description is empty');
  if (!spec.icon?.length || !spec.icon[0]?.base64data) warn('csv-icon', 'spec.icon is missing');
  for (const icon of spec.icon ?? []) {
    if (icon.base64data && !ICON_TYPES.has(icon.mediatype ?? ''))
      warn(
        'csv-icon-mediatype',
        `icon media type "${icon.mediatype ?? ''}" is not one of ${[...ICON_TYPES].join(', ')}`,
      );
  }
  if (!spec.provider?.name) warn('csv-provider', 'spec.provider is missing');
  if (!spec.maintainers?.length) warn('csv-maintainers', 'spec.maintainers is missing');
  if (!spec.minKubeVersion) warn('csv-min-kube-version', 'spec.minKubeVersion is missing');
  for (const d of spec.install?.spec?.deployments ?? []) {
    if ((d.spec?.template?.spec?.containers ?? []).some((c) => !c.resources?.requests)) {
      warn('good-practice-requests', 'a deployment container has no resource requests');
    }
  }
  for (const o of objects) {
    const removed = removedApi(o.object.apiVersion ?? '', o.object.kind ?? '');
    if (!removed) continue;
    const what = `${o.file}: ${o.object.kind} ${o.object.apiVersion} was removed in Kubernetes ${removed.removedIn}; use ${removed.use}`;
    if (
      options.optionalSuites?.includes('operatorhub') &&
      atOrAfter(spec.minKubeVersion, removed.removedIn)
    ) {
      error(
        'operatorhub-removed-apis',
        `${what} (spec.minKubeVersion ${spec.minKubeVersion} has no such API)`,
      );
    } else warn('bundle-removed-apis', what);
  }
  if (dirSize(dir) > SIZE_WARNING_BYTES)
    warn('bundle-size', 'the bundle is larger than 1 MiB: close to what catalogs accept');

  if (options.optionalSuites?.includes('operatorhub')) {
    const cap = csv.metadata?.annotations?.capabilities;
    if (!cap || !CAPABILITIES.has(cap))
      error(
        'operatorhub-capabilities',
        `capabilities "${cap ?? ''}" is not one of ${[...CAPABILITIES].join(', ')}`,
      );
    for (const cat of (csv.metadata?.annotations?.categories ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '')) {
      if (!CATEGORIES.has(cat))
        error('operatorhub-categories', `category "${cat}" is not an OperatorHub category`);
    }
    for (const m of spec.maintainers ?? []) {
      if (!m.email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(m.email))
        error('operatorhub-maintainers', `maintainer ${m.name ?? ''} has no valid email`);
    }
    for (const l of spec.links ?? []) {
      if (!l.url || !URL.canParse(l.url)) error('operatorhub-links', `link ${l.name ?? ''} has no valid URL`);
    }
    if (!spec.provider?.name) error('operatorhub-provider', 'spec.provider.name is required by OperatorHub');
    if (!spec.description) error('operatorhub-description', 'spec.description is required by OperatorHub');
    if (!spec.icon?.[0]?.base64data) error('operatorhub-icon', 'spec.icon is required by OperatorHub');
    if (!spec.minKubeVersion)
      error('operatorhub-min-kube-version', 'spec.minKubeVersion is required by OperatorHub');
  }
  return findings;
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ANNOTATION_KEYS } from './build.ts';
import type { CrdManifest } from './inputs.ts';
import { readYamlDir, readYamlFile, type Located, type Manifest } from './manifests.ts';
import { checkOlmV1, OLM_V1_RULE_IDS } from './olm-v1.ts';
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
  /** The OLM v1 readiness rules (olm-v1.ts) as errors; without it they are warnings. */
  readonly olmV1?: boolean;
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

type OwnedCrd = NonNullable<NonNullable<CsvSpec['customresourcedefinitions']>['owned']>[number];

/** The bundle as the rules read it: manifests/ with its one CSV, parsed once. */
interface BundleView {
  readonly dir: string;
  readonly objects: readonly Located<Manifest>[];
  readonly csvFile: string;
  readonly csv: Manifest;
  readonly spec: CsvSpec;
  readonly owned: readonly OwnedCrd[];
  readonly crds: readonly Located<CrdManifest>[];
  /** alm-examples, parsed (empty when it does not parse: `examplesError` says why). */
  readonly examples: readonly Manifest[];
  readonly examplesError?: string;
  /** metadata/annotations.yaml's annotations; undefined when the file is missing. */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly minKubeVersion?: string;
  /** The OperatorHub suite runs. */
  readonly hub: boolean;
}

/** One rule of `bundle validate`: its severity, whether only the OperatorHub suite runs it, its check. */
interface Rule {
  readonly severity: Severity;
  readonly operatorhub?: boolean;
  check(bundle: BundleView, report: (message: string) => void): void;
}

const validCrd = (c: Located<CrdManifest>): boolean => {
  const s = c.object.spec;
  return (
    c.object.apiVersion === 'apiextensions.k8s.io/v1' &&
    !!s?.group &&
    !!s.names?.kind &&
    !!s.names.plural &&
    Array.isArray(s.versions) &&
    s.versions.length > 0
  );
};

/** Objects of an API Kubernetes removed, with what replaces it. */
function removedApis(b: BundleView): { message: string; gone: boolean }[] {
  return b.objects.flatMap((o) => {
    const removed = removedApi(o.object.apiVersion ?? '', o.object.kind ?? '');
    if (!removed) return [];
    return [
      {
        message: `${o.file}: ${o.object.kind} ${o.object.apiVersion} was removed in Kubernetes ${removed.removedIn}; use ${removed.use}`,
        // The cluster versions the CSV allows have no such API at all.
        gone: atOrAfter(b.minKubeVersion, removed.removedIn),
      },
    ];
  });
}

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');

/**
 * The rules, keyed by the id each finding carries, in the order they run. The checks that need no
 * CSV (`bundle-manifests`, `bundle-supported-kinds`, `bundle-one-csv`) run first, in validateBundle;
 * the webhook definitions' rules (`csv-webhook-*`, `csv-conversion-*`) are in validate-webhooks.ts.
 */
const RULES: Readonly<Record<string, Rule>> = {
  'csv-name': {
    severity: 'error',
    check(b, report) {
      const name = b.csv.metadata?.name ?? '';
      if (!name || !isDnsSubdomain(name))
        report(`${b.csvFile}: metadata.name "${name}" is not a DNS-1123 subdomain`);
    },
  },
  'csv-version-semver': {
    severity: 'error',
    check(b, report) {
      if (!b.spec.version || !isSemver(b.spec.version))
        report(`${b.csvFile}: spec.version "${b.spec.version ?? ''}" is not semver`);
    },
  },
  'csv-replaces': {
    severity: 'error',
    check(b, report) {
      if (b.spec.replaces !== undefined && !isDnsSubdomain(b.spec.replaces))
        report(`${b.csvFile}: spec.replaces "${b.spec.replaces}" is not a valid CSV name`);
    },
  },
  'csv-skips': {
    severity: 'error',
    check(b, report) {
      for (const skip of b.spec.skips ?? [])
        if (!isDnsSubdomain(skip)) report(`${b.csvFile}: spec.skips "${skip}" is not a valid CSV name`);
    },
  },
  'csv-skip-range': {
    severity: 'error',
    check(b, report) {
      const skipRange = b.csv.metadata?.annotations?.['olm.skipRange'];
      if (skipRange !== undefined && !isSemverRange(skipRange))
        report(`${b.csvFile}: olm.skipRange "${skipRange}" is not a semver range`);
    },
  },
  'csv-install-modes': {
    severity: 'error',
    check(b, report) {
      const modes = b.spec.installModes ?? [];
      if (modes.length === 0) report(`${b.csvFile}: spec.installModes is missing`);
      const types = modes.map((m) => m.type ?? '');
      if (new Set(types).size !== types.length)
        report(`${b.csvFile}: spec.installModes has a duplicate type`);
      for (const t of types) if (!INSTALL_MODES.has(t)) report(`${b.csvFile}: unknown install mode "${t}"`);
      if (modes.length > 0 && !modes.some((m) => m.supported))
        report(`${b.csvFile}: no install mode is supported`);
    },
  },
  'csv-owned-crd-fields': {
    severity: 'error',
    check(b, report) {
      for (const o of b.owned)
        if (!o.name || !o.version || !o.kind)
          report(`${b.csvFile}: an owned CRD entry lacks name, version or kind`);
    },
  },
  'csv-alm-examples': {
    severity: 'error',
    check(b, report) {
      if (b.examplesError !== undefined)
        report(`${b.csvFile}: alm-examples is not a JSON array (${b.examplesError})`);
    },
  },
  'crd-valid': {
    severity: 'error',
    check(b, report) {
      for (const c of b.crds) {
        if (!validCrd(c)) {
          report(
            `${c.file}: not a valid apiextensions.k8s.io/v1 CRD (group, names and versions are required)`,
          );
          continue;
        }
        const s = c.object.spec;
        if (s.versions.filter((v) => v.storage).length !== 1)
          report(`${c.file}: exactly one version must be the storage version`);
        if (c.object.metadata?.name !== `${s.names.plural}.${s.group}`)
          report(`${c.file}: metadata.name must be ${s.names.plural}.${s.group}`);
      }
    },
  },
  'bundle-owned-crd-present': {
    severity: 'error',
    check(b, report) {
      for (const o of b.owned) {
        const crd = b.crds.find((c) => c.object.metadata?.name === o.name);
        if (!crd) {
          report(`${b.csvFile}: owned CRD ${o.name} is not in manifests/`);
          continue;
        }
        const version = crd.object.spec.versions.find((v) => v.name === o.version);
        if (!version || version.served === false)
          report(`${crd.file}: version ${o.version} of ${o.name} is not served`);
      }
    },
  },
  'bundle-owned-crd-match': {
    severity: 'error',
    check(b, report) {
      for (const o of b.owned) {
        const crd = b.crds.find((c) => c.object.metadata?.name === o.name);
        if (crd && (crd.object.spec.names.kind !== o.kind || !o.name?.endsWith(`.${crd.object.spec.group}`)))
          report(
            `${b.csvFile}: owned CRD ${o.name} says kind ${o.kind}; the CRD has kind ${crd.object.spec.names.kind} in group ${crd.object.spec.group}`,
          );
      }
    },
  },
  'bundle-crd-owned': {
    severity: 'error',
    check(b, report) {
      const required = new Set((b.spec.customresourcedefinitions?.required ?? []).map((r) => r.name));
      for (const c of b.crds) {
        const n = c.object.metadata?.name;
        if (!b.owned.some((o) => o.name === n) && !required.has(n))
          report(`${c.file}: CRD ${n} is neither owned nor required by the CSV`);
      }
    },
  },
  'bundle-annotations': {
    severity: 'error',
    check(b, report) {
      if (!b.annotations) return report('metadata/annotations.yaml is missing');
      for (const key of MANDATORY_ANNOTATIONS)
        if (!b.annotations[key]) report(`metadata/annotations.yaml: ${key} is missing`);
    },
  },
  'bundle-dockerfile-labels': {
    severity: 'error',
    check(b, report) {
      const dockerfile = join(dirname(b.dir), 'bundle.Dockerfile');
      if (!b.annotations || !existsSync(dockerfile)) return;
      const labels = new Map(
        [...readFileSync(dockerfile, 'utf8').matchAll(/^LABEL\s+(\S+?)=(.*)$/gm)].map((m) => [
          m[1]!,
          m[2]!.trim(),
        ]),
      );
      for (const [k, v] of Object.entries(b.annotations))
        if (labels.get(k) !== v)
          report(`bundle.Dockerfile: LABEL ${k} does not match metadata/annotations.yaml ("${v}")`);
    },
  },
  'good-practice-channel': {
    severity: 'warning',
    check(b, report) {
      for (const ch of list(b.annotations?.[ANNOTATION_KEYS.channels]))
        if (!CHANNELS.has(ch)) report(`channel "${ch}" is not one of ${[...CHANNELS].join(', ')}`);
    },
  },
  'csv-example-per-crd': {
    severity: 'warning',
    check(b, report) {
      for (const o of b.owned) {
        const group = o.name?.split('.').slice(1).join('.');
        if (!b.examples.some((e) => e.kind === o.kind && (e.apiVersion ?? '').split('/')[0] === group))
          report(`owned CRD ${o.name} has no example in alm-examples`);
      }
    },
  },
  'csv-example-owned': {
    severity: 'warning',
    check(b, report) {
      for (const e of b.examples) {
        const group = (e.apiVersion ?? '').split('/')[0];
        if (!b.owned.some((o) => o.kind === e.kind && o.name?.endsWith(`.${group}`)))
          report(`alm-examples has a ${e.kind} (${e.apiVersion}), which the CSV does not own`);
      }
    },
  },
  'csv-description': {
    severity: 'warning',
    check: (b, report) => void (b.spec.description || report('spec.description is empty')),
  },
  'csv-icon': {
    severity: 'warning',
    check: (b, report) => void (b.spec.icon?.[0]?.base64data || report('spec.icon is missing')),
  },
  'csv-icon-mediatype': {
    severity: 'warning',
    check(b, report) {
      for (const icon of b.spec.icon ?? [])
        if (icon.base64data && !ICON_TYPES.has(icon.mediatype ?? ''))
          report(`icon media type "${icon.mediatype ?? ''}" is not one of ${[...ICON_TYPES].join(', ')}`);
    },
  },
  'csv-provider': {
    severity: 'warning',
    check: (b, report) => void (b.spec.provider?.name || report('spec.provider is missing')),
  },
  'csv-maintainers': {
    severity: 'warning',
    check: (b, report) => void (b.spec.maintainers?.length || report('spec.maintainers is missing')),
  },
  'csv-min-kube-version': {
    severity: 'warning',
    check: (b, report) => void (b.spec.minKubeVersion || report('spec.minKubeVersion is missing')),
  },
  'good-practice-requests': {
    severity: 'warning',
    check(b, report) {
      for (const d of b.spec.install?.spec?.deployments ?? [])
        if ((d.spec?.template?.spec?.containers ?? []).some((c) => !c.resources?.requests))
          report('a deployment container has no resource requests');
    },
  },
  'bundle-removed-apis': {
    severity: 'warning',
    check(b, report) {
      for (const r of removedApis(b)) if (!(b.hub && r.gone)) report(r.message);
    },
  },
  'operatorhub-removed-apis': {
    severity: 'error',
    operatorhub: true,
    check(b, report) {
      for (const r of removedApis(b))
        if (r.gone) report(`${r.message} (spec.minKubeVersion ${b.minKubeVersion} has no such API)`);
    },
  },
  'bundle-size': {
    severity: 'warning',
    check(b, report) {
      if (dirSize(b.dir) > SIZE_WARNING_BYTES)
        report('the bundle is larger than 1 MiB: close to what catalogs accept');
    },
  },
  'operatorhub-capabilities': {
    severity: 'error',
    operatorhub: true,
    check(b, report) {
      const cap = b.csv.metadata?.annotations?.capabilities;
      if (!cap || !CAPABILITIES.has(cap))
        report(`capabilities "${cap ?? ''}" is not one of ${[...CAPABILITIES].join(', ')}`);
    },
  },
  'operatorhub-categories': {
    severity: 'error',
    operatorhub: true,
    check(b, report) {
      for (const cat of list(b.csv.metadata?.annotations?.categories))
        if (!CATEGORIES.has(cat)) report(`category "${cat}" is not an OperatorHub category`);
    },
  },
  'operatorhub-maintainers': {
    severity: 'error',
    operatorhub: true,
    check(b, report) {
      for (const m of b.spec.maintainers ?? [])
        if (!m.email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(m.email))
          report(`maintainer ${m.name ?? ''} has no valid email`);
    },
  },
  'operatorhub-links': {
    severity: 'error',
    operatorhub: true,
    check(b, report) {
      for (const l of b.spec.links ?? [])
        if (!l.url || !URL.canParse(l.url)) report(`link ${l.name ?? ''} has no valid URL`);
    },
  },
  'operatorhub-provider': {
    severity: 'error',
    operatorhub: true,
    check: (b, report) =>
      void (b.spec.provider?.name || report('spec.provider.name is required by OperatorHub')),
  },
  'operatorhub-description': {
    severity: 'error',
    operatorhub: true,
    check: (b, report) => void (b.spec.description || report('spec.description is required by OperatorHub')),
  },
  'operatorhub-icon': {
    severity: 'error',
    operatorhub: true,
    check: (b, report) =>
      void (b.spec.icon?.[0]?.base64data || report('spec.icon is required by OperatorHub')),
  },
  'operatorhub-min-kube-version': {
    severity: 'error',
    operatorhub: true,
    check: (b, report) =>
      void (b.spec.minKubeVersion || report('spec.minKubeVersion is required by OperatorHub')),
  },
};

/** The id of every rule `bundle validate` reports (OLM v1 readiness's included), the webhook definitions' rules apart. */
export const RULE_IDS: readonly string[] = [
  'bundle-manifests',
  'bundle-supported-kinds',
  'bundle-one-csv',
  ...Object.keys(RULES),
  ...OLM_V1_RULE_IDS,
];

/** alm-examples parsed: a JSON array, or why it is not one. */
function parseExamples(text: string | undefined): { examples: Manifest[]; error?: string } {
  if (text === undefined) return { examples: [] };
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error('not an array');
    return { examples: parsed as Manifest[] };
  } catch (err) {
    return { examples: [], error: (err as Error).message };
  }
}

function bundleView(
  dir: string,
  objects: readonly Located<Manifest>[],
  csvFile: Located<Manifest>,
  options: ValidateOptions,
): BundleView {
  const csv = csvFile.object;
  const spec = (csv.spec ?? {}) as CsvSpec;
  const { examples, error } = parseExamples(csv.metadata?.annotations?.['alm-examples']);
  const annotationsFile = join(dir, 'metadata', 'annotations.yaml');
  const annotations = existsSync(annotationsFile)
    ? ((readYamlFile(annotationsFile, dir)[0]?.object as { annotations?: Record<string, string> } | undefined)
        ?.annotations ?? {})
    : undefined;
  return {
    dir,
    objects,
    csvFile: csvFile.file,
    csv,
    spec,
    owned: spec.customresourcedefinitions?.owned ?? [],
    crds: objects.filter((o) => o.object.kind === 'CustomResourceDefinition') as Located<CrdManifest>[],
    examples,
    ...(error === undefined ? {} : { examplesError: error }),
    ...(annotations ? { annotations } : {}),
    ...(spec.minKubeVersion ? { minKubeVersion: spec.minKubeVersion } : {}),
    hub: options.optionalSuites?.includes('operatorhub') === true,
  };
}

/** Checks a bundle directory against the operator-framework validators' rules (see docs/bundle.md). */
export function validateBundle(dir: string, options: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const error = (rule: string, message: string): void =>
    void findings.push({ severity: 'error', rule, message });

  const manifestsDir = join(dir, 'manifests');
  if (!existsSync(manifestsDir)) {
    error('bundle-manifests', `${manifestsDir}: missing: a bundle has manifests/ and metadata/`);
    return findings;
  }
  const objects = readYamlDir(manifestsDir, dir);
  for (const o of objects) {
    if (!SUPPORTED_KINDS.has(o.object.kind ?? ''))
      error('bundle-supported-kinds', `${o.file}: ${o.object.kind} is not a kind OLM installs from a bundle`);
  }
  const csvs = objects.filter((o) => o.object.kind === 'ClusterServiceVersion');
  if (csvs.length !== 1) {
    error(
      'bundle-one-csv',
      `manifests/ holds ${csvs.length} ClusterServiceVersions; a bundle has exactly one`,
    );
    return findings;
  }
  const bundle = bundleView(dir, objects, csvs[0]!, options);
  for (const [rule, { severity, operatorhub, check }] of Object.entries(RULES)) {
    if (operatorhub && !bundle.hub) continue;
    check(bundle, (message) => void findings.push({ severity, rule, message }));
  }
  checkWebhookDefinitions(
    {
      file: bundle.csvFile,
      definitions: bundle.spec.webhookdefinitions ?? [],
      installModes: bundle.spec.installModes ?? [],
      deploymentNames: (bundle.spec.install?.spec?.deployments ?? []).flatMap((d) =>
        d.name ? [d.name] : [],
      ),
      ownedCrds: bundle.owned.flatMap((o) => (o.name ? [o.name] : [])),
      crds: new Map(
        bundle.crds.map((c) => [
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
  const olmV1Severity: Severity = options.olmV1 ? 'error' : 'warning';
  checkOlmV1(
    { dir, csvFile: bundle.csvFile, csv: bundle.csv, objects },
    (rule, message) => void findings.push({ severity: olmV1Severity, rule, message }),
  );
  return findings;
}

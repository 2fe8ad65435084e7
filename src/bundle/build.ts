import { join } from 'node:path';
import { OpGenError } from '../errors.ts';
import type { OutputFile } from '../shared/atomic-write.ts';
import { sortKeysDeep, toYaml } from '../shared/yaml.ts';
import { opGenVersion } from '../version.ts';
import type { OwnedCrdExtras } from './descriptors.ts';
import type { BundleInputs, CrdManifest, DeploymentManifest, PolicyRule } from './inputs.ts';
import type { Located, Manifest } from './manifests.ts';
import { imageReferenceErrors } from '../k8s-names/image-reference.ts';
import { isRfc3339 } from '../k8s-names/rfc3339.ts';
import { isDnsSubdomain, isSemver, isSemverRange } from './semver.ts';
import { withLabels, type Renderer } from '../kustomize/index.ts';
import { managerRbac, supportingManifests } from './supporting.ts';
import { webhookDefinitions } from './webhooks.ts';
import { compareNames } from '../shared/compare-names.ts';

export interface BundleOptions {
  readonly version: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  /** Package name; default the project name. */
  readonly packageName?: string;
  /** Operator image; default the manager Deployment's. */
  readonly image?: string;
  readonly replaces?: string;
  readonly skipRange?: string;
  readonly skips?: readonly string[];
  /** Output folder, relative to the project. Default `bundle`. */
  readonly outDir?: string;
  /** RFC 3339; default now. Fixed for reproducible bundles. */
  readonly createdAt?: string;
  /**
   * How config/'s kustomizations are rendered (kustomize/render-config.ts). Default `op-gen`: the CSV
   * keeps config/'s key order and errors name each object's file; kubectl's output sorts keys.
   */
  readonly renderer?: Renderer;
}

export const ANNOTATION_KEYS = {
  mediatype: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  package: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
  testMediatype: 'operators.operatorframework.io.test.mediatype.v1',
  testConfig: 'operators.operatorframework.io.test.config.v1',
} as const;

const SCORECARD_IMAGE = 'quay.io/operator-framework/scorecard-test:v1.39.0';

function check(options: BundleOptions, inputs: BundleInputs): void {
  if (!isSemver(options.version)) {
    throw new OpGenError(`--version ${options.version}: not a semantic version (e.g. 0.1.0 or 1.2.0-rc.1)`);
  }
  if (options.replaces && !isDnsSubdomain(options.replaces)) {
    throw new OpGenError(`--replaces ${options.replaces}: not a CSV name (<package>.v<version>)`);
  }
  if (options.skipRange && !isSemverRange(options.skipRange)) {
    throw new OpGenError(`--skip-range ${options.skipRange}: not a semver range (e.g. ">=0.1.0 <0.2.0")`);
  }
  if (options.createdAt !== undefined && !isRfc3339(options.createdAt)) {
    throw new OpGenError(
      `--created-at ${options.createdAt}: not an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)`,
    );
  }
  const imageErrors = options.image === undefined ? [] : imageReferenceErrors(options.image);
  if (imageErrors.length > 0) {
    throw new OpGenError(`--image ${options.image}: ${imageErrors.join('; ')}`);
  }
  if (options.channels.length === 0) throw new OpGenError('--channels: at least one channel');
  if (options.defaultChannel && !options.channels.includes(options.defaultChannel)) {
    throw new OpGenError(
      `--default-channel ${options.defaultChannel} is not one of --channels ${options.channels.join(',')}`,
    );
  }
  const pkg = packageName(inputs, options);
  if (!isDnsSubdomain(pkg)) throw new OpGenError(`--package ${pkg}: not a DNS-1123 name`);
  if (inputs.crds.length === 0) {
    throw new OpGenError(
      "config/crd/bases: no CRDs. Run `op-gen generate crd` first (the bundle owns the project's CRDs).",
    );
  }
  for (const r of inputs.project.resources) {
    const group = `${r.group}.${inputs.project.domain}`;
    if (!inputs.crds.some((c) => c.object.spec.group === group && c.object.spec.names.kind === r.kind)) {
      throw new OpGenError(
        `config/crd/bases: no CRD for ${r.kind} (${group}), a resource of op-gen.yaml. Run \`op-gen generate crd\`.`,
      );
    }
  }
}

/** The samples as alm-examples, each of a kind the bundle owns. */
function examples(inputs: BundleInputs): Manifest[] {
  const owned = new Set(inputs.crds.map((c) => `${c.object.spec.group}/${c.object.spec.names.kind}`));
  return inputs.samples.map((s) => {
    const group = (s.object.apiVersion ?? '').split('/')[0];
    if (!owned.has(`${group}/${s.object.kind}`)) {
      throw new OpGenError(
        `${s.file}: a sample of ${s.object.kind} (${s.object.apiVersion}), which the bundle does not own. Remove it from config/samples or add its CRD.`,
      );
    }
    return s.object;
  });
}

/** Rules of the roles bound to the manager's ServiceAccount: ClusterRoles → clusterPermissions, Roles → permissions. */
function permissions(
  inputs: BundleInputs,
  serviceAccount: string,
): { cluster: PolicyRule[]; namespaced: PolicyRule[] } {
  const roles = [...managerRbac([...inputs.rbac, ...inputs.others], serviceAccount).roles].map(
    (r) => r.object,
  );
  const rules = (kind: string): PolicyRule[] =>
    roles.filter((r) => r.kind === kind).flatMap((r) => (r.rules as PolicyRule[] | undefined) ?? []);
  return { cluster: rules('ClusterRole'), namespaced: rules('Role') };
}

function ownedCrds(
  crds: readonly Located<CrdManifest>[],
  extras: ReadonlyMap<string, OwnedCrdExtras>,
): object[] {
  return crds.flatMap((c) =>
    c.object.spec.versions
      .filter((v) => v.served !== false)
      .map((v) => {
        const name = `${c.object.spec.names.plural}.${c.object.spec.group}`;
        const more = extras.get(`${name}/${v.name}`) ?? {};
        return {
          name,
          version: v.name,
          kind: c.object.spec.names.kind,
          displayName: c.object.spec.names.kind,
          description: v.schema?.openAPIV3Schema?.description ?? c.object.spec.names.kind,
          ...more,
        };
      }),
  );
}

export interface BuiltBundle {
  readonly files: OutputFile[];
  /** Things left out, for the user to know (objects of kinds OLM does not install). */
  readonly warnings: string[];
}

/** The manager Deployment as the CSV installs it. */
interface ManagerInstall {
  /** The operator image: --image, else the manager container's. */
  readonly image: string;
  /** The ServiceAccount as config/ names it (the one config/rbac binds), and with the name prefix. */
  readonly serviceAccount: string;
  readonly prefixedServiceAccount: string;
  /** The Deployment's name, with the name prefix. */
  readonly name: string;
  readonly labels?: Record<string, string>;
  /** The Deployment's spec with config/default's labels, the image and the prefixed ServiceAccount. */
  readonly spec: DeploymentManifest['spec'];
  readonly podLabels: Record<string, string>;
}

function managerInstall(inputs: BundleInputs, options: BundleOptions): ManagerInstall {
  const deployment = withLabels(inputs.deployment.object, inputs.labels);
  const container = deployment.spec.template.spec.containers[0];
  if (!container) throw new OpGenError(`${inputs.deployment.file}: the manager Deployment has no container`);
  const image = options.image ?? container.image ?? 'controller:latest';
  const serviceAccount = deployment.spec.template.spec.serviceAccountName ?? 'default';
  const prefixedServiceAccount = `${inputs.namePrefix}${serviceAccount}`;
  const spec = structuredClone(deployment.spec);
  spec.template.spec.serviceAccountName = prefixedServiceAccount;
  spec.template.spec.containers = spec.template.spec.containers.map((c, i) =>
    i === 0 ? { ...c, image } : c,
  );
  return {
    image,
    serviceAccount,
    prefixedServiceAccount,
    name: `${inputs.namePrefix}${deployment.metadata?.name ?? 'controller-manager'}`,
    ...(deployment.metadata?.labels ? { labels: deployment.metadata.labels } : {}),
    spec,
    podLabels: (spec.template as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {},
  };
}

/** The CSV's metadata.annotations: the base CSV's, alm-examples, the image, the build's marks. */
function csvAnnotations(inputs: BundleInputs, options: BundleOptions, image: string): Record<string, string> {
  const createdAt = options.createdAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    ...(inputs.baseCsv.object.metadata?.annotations ?? {}),
    'alm-examples': JSON.stringify(examples(inputs), null, 2),
    containerImage: image,
    createdAt,
    'operators.operatorframework.io/builder': `op-gen-v${opGenVersion()}`,
    'operators.operatorframework.io/project_layout': 'op-gen.dev/v1',
    ...(options.skipRange ? { 'olm.skipRange': options.skipRange } : {}),
  };
}

/** The CSV's install strategy: the manager Deployment and its roles' rules. */
function installStrategy(inputs: BundleInputs, manager: ManagerInstall): object {
  const perms = permissions(inputs, manager.serviceAccount);
  const serviceAccountName = manager.prefixedServiceAccount;
  return {
    strategy: 'deployment',
    spec: {
      deployments: [
        { name: manager.name, ...(manager.labels ? { label: manager.labels } : {}), spec: manager.spec },
      ],
      ...(perms.cluster.length ? { clusterPermissions: [{ serviceAccountName, rules: perms.cluster }] } : {}),
      ...(perms.namespaced.length ? { permissions: [{ serviceAccountName, rules: perms.namespaced }] } : {}),
    },
  };
}

/** The ClusterServiceVersion: config/manifests' base CSV with what the bundle builds filled in. */
function clusterServiceVersion(
  inputs: BundleInputs,
  options: BundleOptions,
  extras: ReadonlyMap<string, OwnedCrdExtras>,
  manager: ManagerInstall,
  webhookDescriptions: readonly object[],
): object {
  const pkg = packageName(inputs, options);
  const baseSpec = (inputs.baseCsv.object.spec ?? {}) as Record<string, unknown>;
  const {
    apiservicedefinitions: _api,
    customresourcedefinitions: baseCrds,
    install: _install,
    version: _v,
    ...keep
  } = baseSpec;
  const required = (baseCrds as { required?: unknown[] } | undefined)?.required;
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `${pkg}.v${options.version}`,
      annotations: csvAnnotations(inputs, options, manager.image),
    },
    spec: {
      ...keep,
      customresourcedefinitions: { owned: ownedCrds(inputs.crds, extras), ...(required ? { required } : {}) },
      install: installStrategy(inputs, manager),
      relatedImages: [{ name: 'manager', image: manager.image }],
      version: options.version,
      ...(options.replaces ? { replaces: options.replaces } : {}),
      ...(options.skips?.length ? { skips: [...options.skips] } : {}),
      ...(webhookDescriptions.length > 0
        ? { webhookdefinitions: webhookDescriptions.map((d) => sortKeysDeep(d)) }
        : {}),
    },
  };
}

function packageName(inputs: BundleInputs, options: BundleOptions): string {
  return options.packageName ?? inputs.project.projectName;
}

/** metadata/annotations.yaml's annotations (bundle.Dockerfile carries them as labels). */
function bundleAnnotations(inputs: BundleInputs, options: BundleOptions): Record<string, string> {
  return {
    [ANNOTATION_KEYS.mediatype]: 'registry+v1',
    [ANNOTATION_KEYS.manifests]: 'manifests/',
    [ANNOTATION_KEYS.metadata]: 'metadata/',
    [ANNOTATION_KEYS.package]: packageName(inputs, options),
    [ANNOTATION_KEYS.channels]: options.channels.join(','),
    ...(options.defaultChannel ? { [ANNOTATION_KEYS.defaultChannel]: options.defaultChannel } : {}),
    [ANNOTATION_KEYS.testMediatype]: 'scorecard+v1',
    [ANNOTATION_KEYS.testConfig]: 'tests/scorecard/',
  };
}

/** bundle.Dockerfile: the bundle image, FROM scratch, labelled with the bundle's annotations. */
function bundleDockerfile(annotations: Readonly<Record<string, string>>, relOut: string): string {
  return [
    'FROM scratch',
    '',
    ...Object.entries(annotations).map(([k, v]) => `LABEL ${k}=${v}`),
    '',
    `COPY ${relOut}/manifests /manifests/`,
    `COPY ${relOut}/metadata /metadata/`,
    `COPY ${relOut}/tests/scorecard /tests/scorecard/`,
    '',
  ].join('\n');
}

/** tests/scorecard/config.yaml: the basic and OLM scorecard tests. */
function scorecardConfig(): object {
  return {
    apiVersion: 'scorecard.operatorframework.io/v1alpha3',
    kind: 'Configuration',
    metadata: { name: 'config' },
    stages: [
      {
        parallel: true,
        tests: [
          'basic-check-spec',
          'olm-bundle-validation',
          'olm-crds-have-validation',
          'olm-spec-descriptors',
        ].map((t) => ({
          entrypoint: ['scorecard-test', t],
          image: SCORECARD_IMAGE,
          labels: { suite: t.startsWith('basic') ? 'basic' : 'olm', test: `${t}-test` },
        })),
      },
    ],
  };
}

const CSV_HEADER =
  '# Generated by op-gen bundle. Do not edit: change config/ and run `op-gen bundle` again.\n';

/**
 * Builds every file of the bundle: CSV, CRDs, supporting manifests, annotations, Dockerfile,
 * scorecard config.
 */
export function buildBundle(
  cwd: string,
  inputs: BundleInputs,
  options: BundleOptions,
  extras: ReadonlyMap<string, OwnedCrdExtras> = new Map(),
): BuiltBundle {
  check(options, inputs);
  const pkg = packageName(inputs, options);
  const relOut = options.outDir ?? 'bundle';
  const out = join(cwd, relOut);
  const manager = managerInstall(inputs, options);
  const supporting = supportingManifests(
    [...inputs.rbac, ...inputs.others],
    manager.serviceAccount,
    inputs.namePrefix,
  );
  const webhooks = webhookDefinitions(
    inputs.webhooks,
    [{ name: manager.name, podLabels: manager.podLabels }],
    inputs.namePrefix,
  );
  const csv = clusterServiceVersion(inputs, options, extras, manager, webhooks.definitions);
  const annotations = bundleAnnotations(inputs, options);
  const files = [
    { path: join(out, 'manifests', `${pkg}.clusterserviceversion.yaml`), content: CSV_HEADER + toYaml(csv) },
    ...supporting.manifests.map((m) => ({
      path: join(out, 'manifests', m.fileName),
      content: toYaml(withLabels(m.object, inputs.labels)),
    })),
    ...inputs.crds.map((c) => ({
      path: join(out, 'manifests', `${c.object.spec.group}_${c.object.spec.names.plural}.yaml`),
      content: toYaml(c.object),
    })),
    { path: join(out, 'metadata', 'annotations.yaml'), content: toYaml({ annotations }) },
    {
      path: join(out, 'tests', 'scorecard', 'config.yaml'),
      content: toYaml(sortKeysDeep(scorecardConfig())),
    },
    { path: join(cwd, 'bundle.Dockerfile'), content: bundleDockerfile(annotations, relOut) },
  ].sort((a, b) => compareNames(a.path, b.path));
  const warnings = [
    ...supporting.skipped.map((s) => `${s}: OLM does not install this kind from a bundle; left out`),
    ...webhooks.warnings,
  ];
  return { files, warnings };
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OpGenError } from '../errors.ts';
import { ProblemsError } from '../shared/problems.ts';
import { crdShapeProblems } from '../shared/crd-shape.ts';
import { deploymentShapeProblems } from './deployment-shape.ts';
import { requireProjectFile, type ProjectFile } from '../project/project-file.ts';
import {
  checkDefaultKustomization,
  labelEntries,
  withDefaultTransforms,
  type LabelEntry,
  type Renderer,
} from '../kustomize/index.ts';
import {
  readKustomizedDir,
  readListedFiles,
  readYamlDir,
  readYamlFile,
  type Located,
  type Manifest,
} from './manifests.ts';
import { readWebhookInputs, type WebhookInputs } from './webhooks.ts';

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface CrdManifest extends Manifest {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    scope?: string;
    versions: {
      name: string;
      served?: boolean;
      storage?: boolean;
      schema?: { openAPIV3Schema?: { description?: string } };
    }[];
  };
}

export interface DeploymentManifest extends Manifest {
  spec: {
    template: {
      spec: {
        serviceAccountName?: string;
        containers: { name: string; image?: string; resources?: { requests?: object } }[];
      };
    };
    [key: string]: unknown;
  };
}

/**
 * Everything `op-gen bundle` reads from a project: each folder config/default lists, rendered by op-gen's
 * kustomize renderer, and config/default's own settings, which the bundle applies itself.
 */
export interface BundleInputs {
  readonly project: ProjectFile;
  readonly baseCsv: Located;
  readonly crds: readonly Located<CrdManifest>[];
  readonly deployment: Located<DeploymentManifest>;
  readonly rbac: readonly Located[];
  /** The other objects of config/manager, config/default and config/prometheus (Services, ...). */
  readonly others: readonly Located[];
  readonly samples: readonly Located[];
  /** config/default's namePrefix, applied to names as kustomize would. */
  readonly namePrefix: string;
  /** config/default's `labels`/`commonLabels`, applied as kustomize would. */
  readonly labels: readonly LabelEntry[];
  /** config/webhook (when config/default lists it) and the CRD conversion patches of config/crd. */
  readonly webhooks: WebhookInputs;
}

const REQUIRED_BASE_FIELDS = [
  'displayName',
  'description',
  'provider',
  'maintainers',
  'installModes',
] as const;

export function readBundleInputs(cwd: string, renderer: Renderer = 'op-gen'): BundleInputs {
  const project = requireProjectFile(cwd);
  const basePath = join(
    cwd,
    'config',
    'manifests',
    'bases',
    `${project.projectName}.clusterserviceversion.yaml`,
  );
  if (!existsSync(basePath)) {
    throw new OpGenError(
      `config/manifests/bases/${project.projectName}.clusterserviceversion.yaml: missing. It is the base CSV (display name, description, maintainers, ...): \`op-gen init\` writes one; create it by hand otherwise.`,
    );
  }
  const baseCsv = readYamlFile(basePath, cwd)[0];
  if (!baseCsv || baseCsv.object.kind !== 'ClusterServiceVersion') {
    throw new OpGenError(
      `config/manifests/bases/${project.projectName}.clusterserviceversion.yaml: not a ClusterServiceVersion`,
    );
  }
  const spec = (baseCsv.object.spec ?? {}) as Record<string, unknown>;
  const missing = REQUIRED_BASE_FIELDS.filter((f) => {
    const v = spec[f];
    return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
  });
  if (missing.length > 0) {
    throw new OpGenError(
      `${baseCsv.file}: spec.${missing.join(', spec.')} missing or empty. Fill them in the base CSV.`,
    );
  }
  const crds = readYamlDir(join(cwd, 'config', 'crd', 'bases'), cwd).filter(
    (m) => m.object.kind === 'CustomResourceDefinition',
  ) as Located<CrdManifest>[];
  // The CSV's owned CRDs and alm-examples read names and versions from each CRD: a broken one (a
  // hand edit, a bad merge) is every wrong field by path, not a crash while the CSV is built.
  const crdProblems = crds.flatMap((c) =>
    crdShapeProblems(c.object.spec).map((p) => ({ text: `${c.file}: ${p}. Run \`op-gen generate crd\`.` })),
  );
  if (crdProblems.length > 0) throw new ProblemsError(crdProblems);
  const manager = readKustomizedDir(join(cwd, 'config', 'manager'), cwd, renderer);
  const managerDeployment = manager.find((m) => m.object.kind === 'Deployment') as
    Located<DeploymentManifest> | undefined;
  if (!managerDeployment) {
    throw new OpGenError(
      "config/manager: no Deployment. The bundle's install strategy is built from the manager Deployment (config/manager/manager.yaml).",
    );
  }
  const shape = deploymentShapeProblems(managerDeployment.object);
  if (shape.length > 0) {
    throw new ProblemsError(
      shape.map((p) => ({
        text: `${managerDeployment.file}: Deployment ${p}. The bundle's install strategy is built from this Deployment.`,
      })),
    );
  }
  const defaultsPath = join(cwd, 'config', 'default', 'kustomization.yaml');
  const defaults = existsSync(defaultsPath)
    ? (readYamlFile(defaultsPath, cwd).at(0)?.object as
        { namePrefix?: string; resources?: unknown; labels?: unknown; commonLabels?: unknown } | undefined)
    : undefined;
  const transforms = checkDefaultKustomization(
    defaults as Record<string, unknown> | undefined,
    'config/default/kustomization.yaml',
  );
  const deployment = {
    file: managerDeployment.file,
    object: withDefaultTransforms(managerDeployment.object, transforms),
  };
  // config/prometheus (a ServiceMonitor) ships only when config/default deploys it.
  const withPrometheus =
    Array.isArray(defaults?.resources) &&
    defaults.resources.some((r) => typeof r === 'string' && r.replace(/\/$/, '') === '../prometheus');
  return {
    project,
    baseCsv,
    crds,
    deployment,
    rbac: readKustomizedDir(join(cwd, 'config', 'rbac'), cwd, renderer),
    others: [
      ...manager.filter((m) => m !== managerDeployment),
      ...readListedFiles(join(cwd, 'config', 'default'), cwd),
      ...(withPrometheus ? readKustomizedDir(join(cwd, 'config', 'prometheus'), cwd, renderer) : []),
    ],
    samples: readKustomizedDir(join(cwd, 'config', 'samples'), cwd, renderer),
    namePrefix: defaults?.namePrefix ?? '',
    labels: labelEntries(defaults),
    webhooks: readWebhookInputs(cwd, defaults?.resources, renderer),
  };
}

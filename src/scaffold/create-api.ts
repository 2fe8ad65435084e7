import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runGeneratorsAfter, type GeneratingIo, type ScaffoldResult } from './run-generators.ts';
import { OpGenError, UsageError } from '../errors.ts';
import { writeFilesAtomically } from '../shared/atomic-write.ts';
import {
  apiGroup,
  PROJECT_FILE,
  renderProjectFile,
  requireProjectFile,
  withScaffoldCommand,
  type ProjectFile,
  type ProjectResource,
} from '../project/project-file.ts';
import { projectHeader } from './boilerplate.ts';
import { addKustomizeResource, insertAboveMarker, readScaffoldedFile } from './edits.ts';
import type { ScaffoldIo } from './init.ts';
import { kebabCase, pluralize, validateGroup, validateKind, validateVersion } from './names.ts';
import { requiredValue } from './prompt.ts';
import { renderTemplateSet, type RenderedFile } from './render.ts';

export interface CreateApiOptions {
  /** The project root (holds op-gen.yaml). */
  readonly dir: string;
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  /** Scope; defaults to the scope of other versions of the kind, else namespaced. */
  readonly namespaced?: boolean;
  /** Scaffold a controller; defaults to true for the first version of a kind, false for later ones. */
  readonly controller?: boolean;
  /**
   * What the types and controller show: by default a minimal reconciler (finalizer, `Ready`
   * condition, nothing owned); `deployment` is the example that keeps a Deployment from
   * `spec.size` and `spec.image` (kubebuilder's deploy-image plugin).
   */
  readonly example?: ApiExample;
  /**
   * Scaffold the controller on op-gen/runtime dependents (these kinds, applied in the order
   * ConfigMap, Deployment, Service) instead of a reconciler; the types get `spec.size` and
   * `spec.image` as with the `deployment` example.
   */
  readonly dependents?: readonly ApiDependent[];
  /** Skip running the generators afterwards. */
  readonly skipGenerate?: boolean;
}

/** The examples `create api --example` writes. */
export const API_EXAMPLES = ['deployment'] as const;
export type ApiExample = (typeof API_EXAMPLES)[number];

/** The kinds `create api --dependents` can scaffold, in workflow order. */
export const API_DEPENDENTS = ['configmap', 'deployment', 'service'] as const;
export type ApiDependent = (typeof API_DEPENDENTS)[number];
const DEPENDENT_NAMES: Readonly<Record<ApiDependent, { variable: string; type: string; condition: string }>> =
  {
    configmap: { variable: 'config', type: 'V1ConfigMap', condition: 'ConfigReady' },
    deployment: { variable: 'deployment', type: 'V1Deployment', condition: 'DeploymentReady' },
    service: { variable: 'service', type: 'V1Service', condition: 'ServiceReady' },
  };

/** The template context of `--dependents`: which dependents, their variables, client types and conditions. */
function dependentsContext(dependents: readonly ApiDependent[]): Record<string, string | boolean> {
  const chosen = API_DEPENDENTS.filter((d) => dependents.includes(d)).map((d) => DEPENDENT_NAMES[d]);
  return {
    depConfigMap: dependents.includes('configmap'),
    depDeployment: dependents.includes('deployment'),
    depService: dependents.includes('service'),
    needsCore: dependents.includes('configmap') || dependents.includes('service'),
    dependentsList: chosen.map((d) => d.variable).join(', '),
    clientTypes: chosen.map((d) => d.type).join(', '),
    conditionTypes: chosen.map((d) => `\`${d.condition}\``).join(', '),
  };
}

/** Checks `--dependents` against the other options; every problem is a usage error. */
function checkDependents(options: CreateApiOptions, resource: ProjectResource): void {
  const deps = options.dependents;
  if (deps === undefined) return;
  const unknown = deps.filter((d) => !API_DEPENDENTS.includes(d));
  const problems: string[] = [];
  if (unknown.length > 0 || deps.length === 0)
    problems.push(
      `--dependents ${deps.join(',')}: the kinds are ${API_DEPENDENTS.join(', ')} (comma-separated)`,
    );
  if (options.example !== undefined) problems.push('--dependents and --example exclude each other: pass one');
  if (!resource.controller) problems.push('--dependents scaffolds a controller: drop --no-controller');
  if (!resource.namespaced)
    problems.push(
      '--dependents needs a namespaced kind: its dependents live in the namespace of the object that owns them',
    );
  if (problems.length > 0) throw new UsageError(`${problems.join('; ')}.`);
}

/** A generator `create api` runs after writing (`generate crd`, `rbac`, `client`, when present). */
export type { Generator } from './run-generators.ts';

/** `create api` runs `generate crd`, `rbac` and `client` (those op-gen has) unless skipGenerate. */
export type CreateApiIo = GeneratingIo;
export type CreateApiResult = ScaffoldResult;

export const CONTROLLERS_INDEX = 'src/controllers/index.ts';
export const IMPORTS_MARKER = 'op-gen:scaffold:imports';
export const CONTROLLERS_MARKER = 'op-gen:scaffold:controllers';
const CRD_KUSTOMIZATION = 'config/crd/kustomization.yaml';
const SAMPLES_KUSTOMIZATION = 'config/samples/kustomization.yaml';

function readProjectText(root: string, path: string): string {
  return readScaffoldedFile(root, path, 'op-gen create api');
}

/** The group, version and kind, from the options or asked for, each validated. */
async function resourceNames(
  options: CreateApiOptions,
  project: ProjectFile,
  io: ScaffoldIo,
): Promise<{ group: string; version: string; kind: string }> {
  const group = await requiredValue(
    options.group,
    '--group',
    'API group, without the domain (e.g. cache)',
    io.prompt,
  );
  validateGroup(group, project.domain);
  const version = await requiredValue(options.version, '--version', 'API version (e.g. v1alpha1)', io.prompt);
  validateVersion(version);
  const kind = await requiredValue(options.kind, '--kind', 'Kind, in PascalCase (e.g. Memcached)', io.prompt);
  validateKind(kind);
  return { group, version, kind };
}

/**
 * The new resource: a version not there yet, the scope of the kind's other versions, a controller
 * only when the kind has none.
 */
function newResource(
  root: string,
  project: ProjectFile,
  names: { group: string; version: string; kind: string },
  options: CreateApiOptions,
): { resource: ProjectResource; sameKind: readonly ProjectResource[] } {
  const { group, version, kind } = names;
  const fullGroup = apiGroup(project, group);
  const sameKind = project.resources.filter((r) => r.group === group && r.kind === kind);
  if (sameKind.some((r) => r.version === version)) {
    throw new OpGenError(
      `${kind} ${fullGroup}/${version} already exists (${join(root, PROJECT_FILE)}). ` +
        'Choose another --version to add a version of the kind, or another --kind.',
    );
  }
  const existingScope = sameKind[0]?.namespaced;
  if (
    existingScope !== undefined &&
    options.namespaced !== undefined &&
    options.namespaced !== existingScope
  ) {
    throw new OpGenError(
      `${kind} is ${existingScope ? 'namespaced' : 'cluster-scoped'} in its other versions (${sameKind.map((r) => r.version).join(', ')}); ` +
        `a CRD has one scope for all versions. Drop --${options.namespaced ? 'namespaced' : 'cluster'}.`,
    );
  }
  const namespaced = options.namespaced ?? existingScope ?? true;
  const controlled = sameKind.find((r) => r.controller);
  if (options.controller === true && controlled) {
    throw new OpGenError(
      `${kind} already has a controller (reconciling ${fullGroup}/${controlled.version}); one controller per kind ` +
        'reconciles every version. Pass --no-controller.',
    );
  }
  const controller = options.controller ?? !controlled;
  const resource = { group, version, kind, plural: pluralize(kind), namespaced, controller };
  return { resource, sameKind };
}

/** The new files from templates/create-api: the API type, the group version file if new, the controller. */
function renderNewFiles(
  root: string,
  project: ProjectFile,
  resource: ProjectResource,
  firstVersion: boolean,
  example: ApiExample | undefined,
  dependents?: readonly ApiDependent[],
): RenderedFile[] {
  const { group, version, kind, plural, namespaced, controller } = resource;
  const kindFile = kebabCase(kind);
  const context = {
    projectName: project.projectName,
    domain: project.domain,
    group,
    version,
    kind,
    fullGroup: apiGroup(project, group),
    plural,
    kindFile,
    kindLower: kind.toLowerCase(),
    kindConst: kindFile.replace(/-/g, '_').toUpperCase(),
    namespaced,
    storageVersion: firstVersion,
    sharded: project.sharding === true,
    exampleDeployment: example === 'deployment' || dependents !== undefined,
    header: projectHeader(root),
    ...(dependents ? dependentsContext(dependents) : {}),
  };
  const created: RenderedFile[] = [...renderTemplateSet('create-api/api', context)];
  const groupVersionFile = `${project.apiDir}/${group}/${version}/groupversion.ts`;
  if (!existsSync(join(root, groupVersionFile)))
    created.push(...renderTemplateSet('create-api/groupversion', context));
  if (controller)
    created.push(
      ...renderTemplateSet(
        dependents
          ? 'create-api/controller-dependents'
          : example === 'deployment'
            ? 'create-api/controller-deployment'
            : 'create-api/controller',
        context,
      ),
    );
  const clashes = created.filter((f) => existsSync(join(root, f.path))).map((f) => join(root, f.path));
  if (clashes.length > 0) {
    throw new OpGenError(
      `${clashes.join(', ')} already exist${clashes.length === 1 ? 's' : ''}; op-gen does not overwrite sources. ` +
        'Move or delete them, or choose another --kind.',
    );
  }
  return created;
}

/** The project's registries with the new kind added: controllers index, kustomizations, op-gen.yaml. */
function editRegistries(
  root: string,
  project: ProjectFile,
  resource: ProjectResource,
  created: readonly RenderedFile[],
  firstVersion: boolean,
  example: ApiExample | undefined,
  dependents?: readonly ApiDependent[],
): RenderedFile[] {
  const { kind, controller } = resource;
  const kindFile = kebabCase(kind);
  const edited: RenderedFile[] = [];
  if (controller) {
    let index = readProjectText(root, CONTROLLERS_INDEX);
    index = insertAboveMarker(
      index,
      IMPORTS_MARKER,
      `import { setup${kind}Controller } from './${kindFile}.controller.ts';`,
      join(root, CONTROLLERS_INDEX),
    );
    index = insertAboveMarker(
      index,
      CONTROLLERS_MARKER,
      `setup${kind}Controller,`,
      join(root, CONTROLLERS_INDEX),
    );
    edited.push({ path: CONTROLLERS_INDEX, content: index });
  }
  if (firstVersion) {
    edited.push({
      path: CRD_KUSTOMIZATION,
      content: addKustomizeResource(
        readProjectText(root, CRD_KUSTOMIZATION),
        `bases/${apiGroup(project, resource.group)}_${resource.plural}.yaml`,
        join(root, CRD_KUSTOMIZATION),
      ),
    });
  }
  const sample = created.find((f) => f.path.startsWith('config/samples/'));
  if (sample) {
    edited.push({
      path: SAMPLES_KUSTOMIZATION,
      content: addKustomizeResource(
        readProjectText(root, SAMPLES_KUSTOMIZATION),
        sample.path.slice('config/samples/'.length),
        join(root, SAMPLES_KUSTOMIZATION),
      ),
    });
  }
  const updated: ProjectFile = withScaffoldCommand(
    { ...project, resources: [...project.resources, resource] },
    [
      ...['create', 'api', '--group', resource.group, '--version', resource.version, '--kind', kind],
      resource.namespaced ? '--namespaced' : '--cluster',
      controller ? '--controller' : '--no-controller',
      ...(example !== undefined ? ['--example', example] : []),
      ...(dependents !== undefined ? ['--dependents', dependents.join(',')] : []),
    ],
  );
  edited.push({ path: PROJECT_FILE, content: renderProjectFile(updated) });
  return edited;
}

/** Validates, renders `templates/create-api`, edits the project's registries and writes it all at once. */
export async function createApi(options: CreateApiOptions, io: CreateApiIo): Promise<CreateApiResult> {
  const root = resolve(options.dir);
  const project = requireProjectFile(root);
  const names = await resourceNames(options, project, io);
  const { resource, sameKind } = newResource(root, project, names, options);
  const firstVersion = sameKind.length === 0;
  if (options.example !== undefined && !API_EXAMPLES.includes(options.example)) {
    throw new UsageError(
      `--example ${String(options.example)}: unknown example; the examples are ${API_EXAMPLES.join(', ')}.`,
    );
  }
  checkDependents(options, resource);
  const created = renderNewFiles(root, project, resource, firstVersion, options.example, options.dependents);
  const edited = editRegistries(
    root,
    project,
    resource,
    created,
    firstVersion,
    options.example,
    options.dependents,
  );

  const all = [...created, ...edited].sort((a, b) => (a.path < b.path ? -1 : 1));
  writeFilesAtomically(all.map((f) => ({ path: join(root, f.path), content: f.content })));
  const { kind, version, namespaced, controller } = resource;
  io.stdout.write(
    `Created ${kind} ${apiGroup(project, resource.group)}/${version} (${namespaced ? 'namespaced' : 'cluster-scoped'}` +
      `${controller ? ', with controller' : ', no controller'}): ${all.map((f) => f.path).join(', ')}\n`,
  );
  const generated = options.skipGenerate ? [] : await runGeneratorsAfter(root, `the ${kind} API`, io);
  return { resource, files: all.map((f) => f.path), generated };
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpGenError } from '../errors.ts';
import { toYaml } from '../shared/yaml.ts';
import { projectFileProblems } from './project-file-shape.ts';
import { ProblemsError } from '../shared/problems.ts';
import { CORE_SCHEMA, loadAll } from 'js-yaml';

/** The API source folder when neither an option nor op-gen.yaml's apiDir names one. */
export const DEFAULT_API_DIR = 'src/api';

export const PROJECT_FILE = 'op-gen.yaml';

export interface ProjectResource {
  /** Short group, e.g. `cache`; the API group is `<group>.<domain>`. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly controller: boolean;
  /** Webhooks `op-gen create webhook` scaffolded for this kind (recorded on the hub version's entry). */
  readonly webhooks?: ProjectWebhooks;
}

/** kubebuilder's PROJECT `webhooks` entry: which handlers a kind has; conversion names its spokes. */
export interface ProjectWebhooks {
  readonly defaulting?: boolean;
  readonly validation?: boolean;
  readonly conversion?: boolean;
  /** The versions converted to and from this (hub) version. */
  readonly spokes?: readonly string[];
}

/**
 * How the project was made (kubebuilder's PROJECT `cliVersion` + its plugin chain): the op-gen version
 * of `init` and every scaffolding command after it, in order, each as the arguments that replay it
 * without prompts. `op-gen upgrade` re-runs them with the old and the new op-gen (docs/upgrade.md).
 */
export interface ScaffoldRecord {
  readonly opGenVersion: string;
  /** `[init, --domain, example.com, ...]`, `[create, api, --group, cache, ...]`, ... */
  readonly commands: readonly (readonly string[])[];
}

export interface ProjectFile {
  readonly version: 1;
  readonly domain: string;
  readonly projectName: string;
  readonly repo?: string;
  /** API source folder, relative to the project root. */
  readonly apiDir: string;
  readonly resources: readonly ProjectResource[];
  /** `generate rbac` settings; `roleName` names the manager ClusterRole (default `manager-role`). */
  readonly rbac?: { readonly roleName?: string };
  /**
   * `generate crd` settings; `generateEmbeddedObjectMeta` gives embedded ObjectMeta (in templates)
   * name, namespace, labels, annotations and finalizers, as controller-gen's option of that name.
   */
  readonly crd?: { readonly generateEmbeddedObjectMeta?: boolean };
  /** `op-gen init --sharding`: controllers `create api` adds are sharded (docs/sharding.md). */
  readonly sharding?: boolean;
  /** Written by `init`; a project made before op-gen recorded it has none (`op-gen upgrade` says what to add). */
  readonly scaffold?: ScaffoldRecord;
}

/** `project` with `command` appended to its scaffold record; unchanged when it has none (never a partial record). */
export function withScaffoldCommand(project: ProjectFile, command: readonly string[]): ProjectFile {
  if (!project.scaffold) return project;
  return { ...project, scaffold: { ...project.scaffold, commands: [...project.scaffold.commands, command] } };
}

export function apiGroup(project: Pick<ProjectFile, 'domain'>, group: string): string {
  return `${group}.${project.domain}`;
}

/** Reads `op-gen.yaml` from `dir`; `undefined` when there is none. */
export function readProjectFile(dir: string): ProjectFile | undefined {
  const path = join(dir, PROJECT_FILE);
  if (!existsSync(path)) return undefined;
  let data: unknown;
  try {
    // js-yaml, not the `yaml` package: same YAML 1.2 core reading, a tenth of the load time (every command reads this file).
    const docs = loadAll(readFileSync(path, 'utf8'), { schema: CORE_SCHEMA });
    if (docs.length > 1) throw new Error('the file holds more than one YAML document');
    data = docs[0];
  } catch (err) {
    throw new OpGenError(
      `${path}: not valid YAML (${(err as Error).message.split('\n')[0]}). Fix the file or re-create it with \`op-gen init\`.`,
    );
  }
  const problems = projectFileProblems(data);
  if (problems.length > 0) {
    const hint = 'Fix the file (see docs/init.md) or re-create it with `op-gen init`.';
    const last = problems.length - 1;
    throw new ProblemsError(
      problems.map((p, i) => ({ text: `${path}: ${p}${i === last ? `. ${hint}` : ''}` })),
    );
  }
  const raw = data as ProjectFile;
  return {
    version: 1,
    domain: raw.domain,
    projectName: raw.projectName,
    ...(raw.repo ? { repo: raw.repo } : {}),
    apiDir: raw.apiDir ?? DEFAULT_API_DIR,
    resources: raw.resources ?? [],
    ...(raw.rbac?.roleName ? { rbac: { roleName: raw.rbac.roleName } } : {}),
    ...(raw.crd?.generateEmbeddedObjectMeta === true ? { crd: { generateEmbeddedObjectMeta: true } } : {}),
    ...(raw.sharding === true ? { sharding: true } : {}),
    ...(raw.scaffold ? { scaffold: raw.scaffold } : {}),
  };
}

/** Like readProjectFile, but a missing file is an error telling the user what to do. */
export function requireProjectFile(dir: string): ProjectFile {
  const project = readProjectFile(dir);
  if (!project) {
    throw new OpGenError(
      `${dir} is not an op-gen project (no ${PROJECT_FILE}). Run \`op-gen init\` first, or pass --cwd <project dir>.`,
    );
  }
  return project;
}

export function renderProjectFile(project: ProjectFile): string {
  return `# Written by op-gen. Records the project's domain and resources for later op-gen commands.\n${toYaml(project)}`;
}

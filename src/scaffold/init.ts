import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { OpGenError, UsageError } from '../errors.ts';
import { dns1123LabelErrors, isDns1123Label } from '../k8s-names/dns.ts';
import { writeFilesAtomically } from '../shared/atomic-write.ts';
import {
  DEFAULT_API_DIR,
  PROJECT_FILE,
  renderProjectFile,
  type ProjectFile,
} from '../project/project-file.ts';
import { LICENSES, licenseHeader, type License } from './boilerplate.ts';
import { runNpmInstall } from './install.ts';
import { titleCase, validateDomain, validateProjectName } from './names.ts';
import { requiredValue, type Prompter } from './prompt.ts';
import { renderTemplateSet, type RenderedFile } from './render.ts';
import { dependencyVersions, opGenDependency } from './versions.ts';
import { opGenVersion } from '../version.ts';

export interface InitOptions {
  /** The project directory (created when missing). */
  readonly dir: string;
  readonly domain?: string;
  /** Project name; defaults to the directory name when that is a valid name. */
  readonly name?: string;
  readonly repo?: string;
  readonly license?: string;
  readonly owner?: string;
  /** Scaffold into a non-empty directory, overwriting files with the same names. */
  readonly force?: boolean;
  readonly skipInstall?: boolean;
  /** Depend on op-gen as `file:<path>` (a working tree, or a tarball from `npm pack`) instead of `^<version>`. */
  readonly opGenPath?: string;
  /** Copyright year; defaults to the current year. */
  readonly year?: number;
  /** Active-active replicas: `--sharding` in the manager, 3 replicas, sharded controllers (docs/sharding.md). */
  readonly sharding?: boolean;
}

export interface ScaffoldIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Asks for a missing required value; absent when nobody can answer (no TTY, or CI). */
  readonly prompt?: Prompter;
}

export interface InitResult {
  readonly root: string;
  readonly project: ProjectFile;
  /** Paths written, relative to root, sorted. */
  readonly files: readonly string[];
}

/** Entries a target directory may already hold without --force. */
const ALLOWED_EXISTING = new Set(['.git']);

/** `My_Dir` -> `my-dir`: a DNS-1123 label close to a directory name, for the error's example. */
function suggestedName(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return name === '' ? 'memcached-operator' : name;
}

function checkTargetDir(root: string, force: boolean): void {
  if (!existsSync(root)) return;
  if (!statSync(root).isDirectory()) {
    throw new OpGenError(`${root} exists and is not a directory. Choose another target directory.`);
  }
  const present = readdirSync(root).filter((entry) => !ALLOWED_EXISTING.has(entry));
  if (present.length > 0 && !force) {
    const shown = present.sort().slice(0, 5).join(', ') + (present.length > 5 ? ', ...' : '');
    throw new OpGenError(
      `${root} is not empty (${shown}). Scaffold into an empty directory, or pass --force to write over it.`,
    );
  }
}

/** Validates everything, renders `templates/init`, then writes all files at once (or none). */
export async function initProject(options: InitOptions, io: ScaffoldIo): Promise<InitResult> {
  const root = resolve(options.dir);
  checkTargetDir(root, options.force ?? false);

  const dirName = basename(root);
  const defaultName = isDns1123Label(dirName) ? dirName : undefined;
  if (options.name === undefined && defaultName === undefined && !io.prompt) {
    throw new UsageError(
      `the directory name ${JSON.stringify(dirName)} is not a valid project name: ${dns1123LabelErrors(dirName).join('; ')}. ` +
        `Pass --name <name> (for example --name ${suggestedName(dirName)}).`,
    );
  }
  const name = await requiredValue(
    options.name ?? defaultName,
    '--name',
    'Project name (e.g. memcached-operator)',
    io.prompt,
  );
  validateProjectName(name);
  const domain = await requiredValue(options.domain, '--domain', 'API domain (e.g. example.com)', io.prompt);
  validateDomain(domain);
  const license = options.license ?? 'apache2';
  if (!(LICENSES as readonly string[]).includes(license)) {
    throw new UsageError(`invalid --license ${JSON.stringify(license)}: use one of ${LICENSES.join(', ')}.`);
  }
  if (options.opGenPath !== undefined) validateOpGenPath(options.opGenPath);

  const owner = options.owner ?? `The ${name} Authors`;
  const year = options.year ?? new Date().getUTCFullYear();
  const header = licenseHeader(license as License, owner, year);
  // Every value resolved (prompts answered, defaults applied): `op-gen upgrade` replays it unattended.
  const recorded = [
    'init',
    ...['--domain', domain, '--name', name],
    ...(options.repo ? ['--repo', options.repo] : []),
    ...['--license', license, '--owner', owner, '--year', String(year)],
    ...(options.sharding ? ['--sharding'] : []),
    ...(options.opGenPath !== undefined ? ['--op-gen-path', resolve(options.opGenPath)] : []),
  ];
  const project: ProjectFile = {
    version: 1,
    domain,
    projectName: name,
    ...(options.repo ? { repo: options.repo } : {}),
    apiDir: DEFAULT_API_DIR,
    resources: [],
    ...(options.sharding ? { sharding: true } : {}),
    scaffold: { opGenVersion: opGenVersion(), commands: [recorded] },
  };
  const context = {
    projectName: name,
    domain,
    repo: options.repo ?? '',
    owner,
    maintainerEmail: '',
    licenseSpdx: license === 'apache2' ? 'Apache-2.0' : 'UNLICENSED',
    licenseText:
      license === 'apache2' ? `Copyright ${owner}. Licensed under the Apache License, Version 2.0.` : '',
    header,
    headerText: header.trim(),
    displayName: titleCase(name),
    description: `${titleCase(name)}: a Kubernetes operator for ${domain}.`,
    leaderElectionId: `${name}.${domain}`,
    sharding: options.sharding === true,
    opGenDependency: opGenDependency(options.opGenPath, process.cwd()),
    versions: dependencyVersions(),
  };
  const rendered: RenderedFile[] = [
    ...renderTemplateSet('init', context),
    { path: PROJECT_FILE, content: renderProjectFile(project) },
  ].sort((a, b) => (a.path < b.path ? -1 : 1));

  writeFilesAtomically(rendered.map((f) => ({ path: join(root, f.path), content: f.content })));
  io.stdout.write(`Scaffolded ${name} (${rendered.length} files) in ${root}\n`);

  if (!options.skipInstall) await runNpmInstall(root, io);
  io.stdout.write(
    `Next: cd ${root} && npx op-gen create api --group <group> --version v1alpha1 --kind <Kind>\n`,
  );
  return { root, project, files: rendered.map((f) => f.path) };
}

/** `--op-gen-path` names an op-gen working tree (a folder with a package.json) or a tarball `npm pack` wrote. */
function validateOpGenPath(path: string): void {
  const target = resolve(path);
  if (/\.tgz$/.test(target)) {
    if (!existsSync(target) || !statSync(target).isFile())
      throw new UsageError(
        `--op-gen-path ${path}: no such file. Point it at the tarball \`npm pack\` wrote.`,
      );
    return;
  }
  if (!existsSync(join(target, 'package.json')))
    throw new UsageError(
      `--op-gen-path ${path}: no package.json there. Point it at an op-gen checkout or a tarball from \`npm pack\` (op-gen-<version>.tgz).`,
    );
}

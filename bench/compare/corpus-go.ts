/**
 * The Go side of the CRD corpus (test/corpus/README.md): a throw-away Go module holding a corpus
 * project's ORIGINAL API packages, for controller-gen. Used by scripts/corpus-expected.ts (which
 * writes test/corpus/<project>/expected/) and by the corpus case of the CRD benchmark (crd-corpus.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ROOT } from './tools.ts';

export const CORPUS_DIR = join(ROOT, 'test/corpus');
/** The Kubernetes release both generators are compared on (op-gen's default built-in types: 1.37). */
export const CORPUS_K8S_API = process.env.K8S_API ?? 'v0.37.2';

export interface CorpusSource {
  readonly repository: string;
  readonly commit: string;
  /** The folder of the checkout that holds the project's go.mod. */
  readonly moduleDir: string;
  /**
   * The module path that go.mod declares: scripts/check-controller-gen-outputs.ts fetches the sources
   * as `<module>@<commit>` from the Go module proxy (`go mod download`).
   */
  readonly module: string;
  /**
   * What is copied, relative to moduleDir: a package folder (its non-test .go files), one file of a
   * package (`api/v1/x_types.go`: the package's other files are left out), or `<file>=<package>`: a
   * file of test/corpus/<project>/ (a shim) added to a package.
   */
  readonly packages: readonly string[];
}

export interface CorpusProject {
  readonly source: CorpusSource;
  readonly frontEnd: 'syntax' | 'checker';
  readonly declined?: string;
  /**
   * Both generators run with `generateEmbeddedObjectMeta` (the project's Makefile runs controller-gen
   * with `crd:generateEmbeddedObjectMeta=true`; expected/ is made with it, corpusControllerGenArgs):
   * without it op-gen must refuse, naming the option.
   */
  readonly generateEmbeddedObjectMeta?: boolean;
  readonly differences: readonly { readonly difference: string; readonly cause: string }[];
}

export function corpusProjects(): Record<string, CorpusProject> {
  return (
    JSON.parse(readFileSync(join(CORPUS_DIR, 'corpus.json'), 'utf8')) as {
      projects: Record<string, CorpusProject>;
    }
  ).projects;
}

/** The checkout folder name of a repository: its last path segment (kubebuilder, lws, ...). */
export function checkoutName(source: CorpusSource): string {
  return basename(source.repository);
}

function run(cmd: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod -p=1`.trim() },
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** The folder of a checkout of the project's repository that holds its go.mod. */
export function checkoutModuleDir(checkout: string, source: CorpusSource): string {
  return join(checkout, source.moduleDir);
}

/**
 * Writes into `work` a Go module with the project's module path holding the API files named by
 * its source, requiring k8s.io/api and k8s.io/apimachinery at CORPUS_K8S_API and the project's other
 * direct requirements at the project's versions, and runs `go mod tidy` (through the Go module proxy).
 * `moduleDir` holds the project's go.mod: a checkout's `source.moduleDir` (checkoutModuleDir) or the
 * module as the Go module proxy serves it (`go mod download`'s Dir).
 * Returns the k8s.io module versions it resolved, e.g. `k8s.io/api v0.37.2, k8s.io/apimachinery v0.37.2`.
 */
export function writeCorpusGoModule(project: string, moduleDir: string, work: string): string {
  const source = corpusProjects()[project]?.source;
  if (!source) throw new Error(`${project} is not in test/corpus/corpus.json`);
  const goMod = readFileSync(join(moduleDir, 'go.mod'), 'utf8');
  const modulePath = /^module\s+(\S+)/m.exec(goMod)?.[1];
  if (!modulePath) throw new Error(`${moduleDir}/go.mod has no module line`);
  if (modulePath !== source.module)
    throw new Error(
      `${moduleDir}/go.mod declares module ${modulePath}, corpus.json's ${project} source.module is ${source.module}`,
    );
  const requires = [...goMod.matchAll(/^\s*(?:require\s+)?([\w.-]+\.[\w./-]+)\s+(v\S+)\s*$/gm)]
    .map((m) => `${m[1]} ${m[2]}`)
    .filter((r) => !/^k8s\.io\/(api|apimachinery) /.test(r));
  for (const entry of source.packages) {
    const shim = /^(.+\.go)=(.+)$/.exec(entry);
    if (shim) {
      mkdirSync(join(work, shim[2]!), { recursive: true });
      cpSync(join(CORPUS_DIR, project, shim[1]!), join(work, shim[2]!, basename(shim[1]!)));
    } else if (entry.endsWith('.go')) {
      mkdirSync(join(work, dirname(entry)), { recursive: true });
      cpSync(join(moduleDir, entry), join(work, entry));
    } else {
      mkdirSync(join(work, entry), { recursive: true });
      for (const f of readdirSync(join(moduleDir, entry))) {
        if (f.endsWith('.go') && !f.endsWith('_test.go'))
          cpSync(join(moduleDir, entry, f), join(work, entry, f));
      }
    }
  }
  writeFileSync(
    join(work, 'go.mod'),
    `module ${modulePath}\n\ngo 1.26\n\nrequire (\n\tk8s.io/api ${CORPUS_K8S_API}\n\tk8s.io/apimachinery ${CORPUS_K8S_API}\n` +
      requires.map((r) => `\t${r}\n`).join('') +
      ')\n',
  );
  run('go', ['mod', 'tidy'], work);
  return run('go', ['list', '-m', 'all'], work)
    .split('\n')
    .filter((line) => /^k8s\.io\/(api|apimachinery) /.test(line))
    .join(', ');
}

/**
 * controller-gen's arguments for a corpus project: the defaults, descriptions removed, and
 * `generateEmbeddedObjectMeta=true` where corpus.json sets the option (as the project's own build does).
 */
export function corpusControllerGenArgs(outDir: string, project: CorpusProject): string[] {
  const crd = project.generateEmbeddedObjectMeta
    ? 'crd:maxDescLen=0,generateEmbeddedObjectMeta=true'
    : 'crd:maxDescLen=0';
  return [crd, 'paths=./...', `output:crd:dir=${outDir}`];
}

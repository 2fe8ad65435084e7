import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpGenError } from '../errors.ts';
import { readYamlDocuments } from '../shared/yaml-documents.ts';
import type { CrdDocument } from './types.ts';

/**
 * The CRDs in one YAML or JSON text: any number of documents, each a CRD or a `List` of them (as
 * `kubectl get crd -o yaml` prints); documents of other kinds are skipped.
 */
export function crdsFromYaml(text: string, source: string): CrdDocument[] {
  const crds: CrdDocument[] = [];
  const docs = readYamlDocuments(
    text,
    (p) => new OpGenError(`${source}:${p.line}: not valid YAML (${p.message})`),
  );
  for (const { value } of docs) {
    if (!isRecord(value)) continue;
    const objects: unknown[] = value.kind === 'List' && Array.isArray(value.items) ? value.items : [value];
    for (const object of objects) {
      if (isRecord(object) && object.kind === 'CustomResourceDefinition')
        crds.push(checkedCrd(object, source));
    }
  }
  return crds;
}

const CRD_FILE = /\.(ya?ml|json)$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the fields the diff reads are there, so a broken file is one clear error, not a crash. */
function checkedCrd(value: Record<string, unknown>, source: string): CrdDocument {
  const metadata = value.metadata;
  const spec = value.spec;
  const name = isRecord(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined;
  const problem = (what: string): OpGenError =>
    new OpGenError(`${source}: CustomResourceDefinition ${name ?? '(no metadata.name)'}: ${what}`);
  if (name === undefined) throw problem('metadata.name is missing');
  if (!isRecord(spec)) throw problem('spec is missing');
  if (typeof spec.group !== 'string') throw problem('spec.group is missing');
  if (!isRecord(spec.names) || typeof spec.names.kind !== 'string')
    throw problem('spec.names.kind is missing');
  if (!Array.isArray(spec.versions)) throw problem('spec.versions is missing');
  for (const v of spec.versions as unknown[]) {
    if (!isRecord(v) || typeof v.name !== 'string') throw problem('a version has no name');
  }
  return value as unknown as CrdDocument;
}

/** The YAML and JSON files of a file or a folder (recursively), sorted. */
function yamlFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && CRD_FILE.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The CRDs in a file or a folder; `display` shortens paths in messages. */
export function crdsFromPath(cwd: string, path: string): CrdDocument[] {
  const full = resolve(cwd, path);
  if (!existsSync(full)) throw new OpGenError(`${path}: no such file or folder`);
  const crds = yamlFiles(full).flatMap((file) =>
    crdsFromYaml(readFileSync(file, 'utf8'), relative(cwd, file) || file),
  );
  return unique(crds, path);
}

/** Two files defining the same CRD make the comparison ambiguous. */
function unique(crds: CrdDocument[], source: string): CrdDocument[] {
  const seen = new Set<string>();
  for (const crd of crds) {
    if (seen.has(crd.metadata.name))
      throw new OpGenError(
        `${source}: CustomResourceDefinition ${crd.metadata.name} is defined more than once`,
      );
    seen.add(crd.metadata.name);
  }
  return crds;
}

function git(cwd: string, args: readonly string[]): { ok: boolean; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error)
    throw new OpGenError(
      `cannot run git: ${r.error.message}. Install git or compare files instead of --base.`,
    );
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.trim() };
}

/**
 * The CRDs in folder `dir` (relative to cwd) as committed at `ref`: read with `git ls-tree` and
 * `git show ref:path`, the working tree is not touched.
 */
export function crdsAtRef(cwd: string, ref: string, dir: string): CrdDocument[] {
  if (ref.startsWith('-')) throw new OpGenError(`--base ${ref}: not a git ref`, { exitCode: 2 });
  const top = git(cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new OpGenError(`--base ${ref}: ${cwd} is not in a git repository`);
  const commit = git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!commit.ok)
    throw new OpGenError(`--base ${ref}: no such commit in this repository (git rev-parse found nothing)`);
  // Paths relative to the repository root (git prints it with symlinks resolved), whatever folder of it cwd is.
  const root = top.stdout.trim();
  const prefix = relative(root, resolve(realpathSync(cwd), dir))
    .split('\\')
    .join('/');
  if (prefix.startsWith('..')) throw new OpGenError(`${dir}: outside the git repository of ${cwd}`);
  const listed = git(root, ['ls-tree', '-r', '--name-only', '-z', ref, '--', prefix === '' ? '.' : prefix]);
  if (!listed.ok) throw new OpGenError(`--base ${ref}: git ls-tree failed: ${listed.stderr}`);
  const files = listed.stdout
    .split('\0')
    .filter((f) => CRD_FILE.test(f))
    .sort();
  const crds = files.flatMap((file) => {
    const shown = git(root, ['show', `${ref}:${file}`]);
    if (!shown.ok) throw new OpGenError(`--base ${ref}: git show ${ref}:${file} failed: ${shown.stderr}`);
    return crdsFromYaml(shown.stdout, `${ref}:${file}`);
  });
  if (crds.length === 0) {
    throw new OpGenError(
      `--base ${ref}: ${ref} has no generated CRDs in ${prefix || '.'}/. Compare with a ref that has them, or pass --dir if they live elsewhere.`,
    );
  }
  return unique(crds, `${ref}:${prefix}`);
}

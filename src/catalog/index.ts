/** `op-gen catalog` and `op-gen catalog validate` as a library (docs/catalog.md). */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { emit } from '../generation/emit.ts';
import type { GenerateResult } from '../generation/contract.ts';
import { OpGenError } from '../errors.ts';
import { ProblemsError } from '../shared/problems.ts';
import { toYamlDocuments } from '../shared/yaml.ts';
import { validateCatalog, type CatalogBlob, type CatalogProblem, type DeprecationsBlob } from './declcfg.ts';
import { readCatalogBundle, renderCatalog, type RenderOptions } from './render.ts';
import { readCatalogFile, readFlagYamlFile } from './files.ts';
import { renderFromTemplate } from './template.ts';

export { CATALOG_RULES, validateCatalog, type CatalogProblem, type CatalogRule } from './declcfg.ts';
export type { CatalogTemplate, RenderOptions } from './render.ts';
export { previousFromCatalog, type PreviousRelease } from './previous.ts';

export interface CatalogOptions extends RenderOptions {
  /** The bundle folders of this and earlier releases, relative to cwd. */
  readonly bundles: readonly string[];
  /** The catalog folder (default `catalog`): the file is `<out>/<package>/catalog.yaml`. */
  readonly outDir?: string;
  readonly check?: boolean;
  /** Each bundle's CRDs as `olm.bundle.object` properties too (for `bundle validate --previous <catalog>`). */
  readonly bundleObjects?: boolean;
  /** An opm template file (olm.template.basic or olm.semver) to render instead of `template`, relative to cwd. */
  readonly from?: string;
  /** A YAML file holding the package's olm.deprecations blob (its `package` may be left out), relative to cwd. */
  readonly deprecations?: string;
}

/** Renders the catalog, checks it against the declcfg rules, then writes it (or with `check`, compares). */
export function generateCatalog(cwd: string, options: CatalogOptions): GenerateResult {
  const bundles = options.bundles.map((dir) => readCatalogBundle(cwd, dir, options.bundleObjects === true));
  const blobs: CatalogBlob[] =
    options.from === undefined
      ? renderCatalog(bundles, options)
      : renderFromTemplate(cwd, options.from, bundles, options.bundleImage);
  const outDir = resolve(cwd, options.outDir ?? 'catalog');
  const pkg = blobs.find((b) => b.schema === 'olm.package')?.name ?? bundles[0]?.package ?? '';
  if (options.deprecations !== undefined) blobs.push(readDeprecations(cwd, options.deprecations, pkg));
  const path = join(outDir, pkg, 'catalog.yaml');
  const problems = validateCatalog(blobs, relative(cwd, path));
  if (problems.length > 0) throw new ProblemsError(problems.map((p) => ({ text: p.message })));
  const owned = existsSync(join(outDir, pkg))
    ? readdirSync(join(outDir, pkg))
        .filter((f) => /\.(ya?ml|json)$/.test(f))
        .map((f) => join(outDir, pkg, f))
    : [];
  return emit(
    'catalog',
    { files: [{ path, content: toYamlDocuments(blobs) }], owned, outDir },
    { cwd, check: options.check === true },
  );
}

/** The olm.deprecations blob of `--deprecations <file>` (one YAML document), its package filled in. */
function readDeprecations(cwd: string, file: string, pkg: string): DeprecationsBlob {
  const docs = readFlagYamlFile(cwd, '--deprecations', file);
  const value = docs[0] as Record<string, unknown> | undefined;
  if (
    docs.length !== 1 ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    value.schema !== 'olm.deprecations'
  )
    throw new OpGenError(
      `--deprecations ${file}: expected one YAML document with schema: olm.deprecations and entries (docs/catalog.md)`,
    );
  return { ...(value as unknown as DeprecationsBlob), package: (value.package as string | undefined) ?? pkg };
}

/** Every problem of a catalog file (YAML documents, or a `.json` file's stream of JSON objects). */
export function validateCatalogFile(cwd: string, file: string): CatalogProblem[] {
  const full = resolve(cwd, file);
  if (!existsSync(full)) throw new OpGenError(`${file}: no such file`);
  const shown = relative(cwd, full) || file;
  return validateCatalog(readCatalogFile(full, shown), shown);
}

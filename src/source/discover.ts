import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpGenError } from '../errors.ts';
import { isDns1123Subdomain } from '../k8s-names/dns.ts';
import { compareNames } from '../shared/compare-names.ts';

/** A version folder: `src/api/<group>/<version>/` with its groupversion.ts. */
export interface VersionFolder {
  readonly dir: string;
  readonly groupVersionFile: string;
  /** The folder's API sources (every .ts file but tests and declarations). */
  readonly files: readonly string[];
}

/** Finds every folder under `apiDir` that holds a groupversion.ts. */
export function findVersionFolders(cwd: string, apiDir: string): VersionFolder[] {
  const root = join(cwd, apiDir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new OpGenError(
      `no API folder at ${relative(cwd, root) || '.'}: create an API with \`op-gen create api\`, or pass --api-dir <dir> (the folder holding <group>/<version>/groupversion.ts).`,
    );
  }
  const folders: VersionFolder[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareNames(a.name, b.name));
    if (entries.some((e) => e.isFile() && e.name === 'groupversion.ts')) {
      folders.push({
        dir,
        groupVersionFile: join(dir, 'groupversion.ts'),
        files: entries
          .filter(
            (e) =>
              e.isFile() &&
              e.name.endsWith('.ts') &&
              !e.name.endsWith('.d.ts') &&
              !/\.(test|spec)\.ts$/.test(e.name),
          )
          .map((e) => join(dir, e.name)),
      });
    }
    for (const e of entries)
      if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) walk(join(dir, e.name));
  };
  walk(root);
  if (folders.length === 0) {
    throw new OpGenError(
      `${relative(cwd, root)}: no groupversion.ts found. Each version folder (<group>/<version>/) declares \`export const groupVersion = { group: 'example.com', version: 'v1' } as const;\` in groupversion.ts.`,
    );
  }
  return folders;
}

const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

/** Reads `export const groupVersion = { group, version } as const` from the AST. */
export function readGroupVersion(
  ts: typeof TS,
  file: TS.SourceFile,
  displayPath: string,
): { group: string; version: string; statement: TS.Statement } {
  const fail = (node: TS.Node | undefined, what: string): never => {
    const line = node ? file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 : 1;
    throw new OpGenError(
      `${displayPath}:${line}: ${what}. Declare the group version once: \`export const groupVersion = { group: 'cache.example.com', version: 'v1alpha1' } as const;\``,
    );
  };
  for (const stmt of file.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const decl of stmt.declarationList.declarations) {
      if (!ts.isIdentifier(decl.name) || decl.name.text !== 'groupVersion') continue;
      if (!stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
        fail(decl, '`groupVersion` is not exported');
      let init = decl.initializer;
      while (
        init &&
        (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))
      )
        init = init.expression;
      if (!init || !ts.isObjectLiteralExpression(init))
        return fail(decl, '`groupVersion` must be an object literal');
      const values: Record<string, string> = {};
      for (const prop of init.properties) {
        if (
          ts.isPropertyAssignment(prop) &&
          ts.isIdentifier(prop.name) &&
          ts.isStringLiteralLike(prop.initializer)
        ) {
          values[prop.name.text] = prop.initializer.text;
        }
      }
      const { group, version } = values;
      if (group === undefined || version === undefined)
        return fail(init, '`groupVersion` needs string literals `group` and `version`');
      if (!isDns1123Subdomain(group) || !group.includes('.')) {
        return fail(init, `group "${group}" is not a DNS subdomain with a dot (e.g. cache.example.com)`);
      }
      if (!VERSION.test(version))
        return fail(init, `version "${version}" is not a Kubernetes version (v1, v1beta1, v2alpha3)`);
      return { group, version, statement: stmt };
    }
  }
  return fail(undefined, 'no `export const groupVersion` found');
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpGenError } from '../../errors.ts';
import type { ApiKindInfo } from '../api-model.ts';

/** What the client template needs to know about one served version of one kind. */
export interface ClientKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** The exported interface or type alias of the kind in the API sources. */
  readonly typeName: string;
  /** Source file, relative to the project root. */
  readonly sourceFile: string;
  /** The folder of the group under the API folder (`shop` for src/api/shop/v1/). */
  readonly groupDir: string;
  readonly status: boolean;
  readonly scale: boolean;
}

/** Served kinds of the API model, with the declaration name read from the source line of the kind. */
export function clientKinds(kinds: readonly ApiKindInfo[], cwd: string, apiDir: string): ClientKind[] {
  const sources = new Map<string, string[]>();
  const lines = (file: string): string[] => {
    let text = sources.get(file);
    if (!text) {
      text = readFileSync(join(cwd, file), 'utf8').split('\n');
      sources.set(file, text);
    }
    return text;
  };
  const prefix = `${apiDir.replace(/\/+$/, '')}/`;
  return kinds
    .filter((k) => k.served)
    .map((k) => {
      const { file, line } = k.location;
      const declaration = lines(file)[line - 1] ?? '';
      const m = /\bexport\s+(?:interface|type)\s+([A-Za-z_$][\w$]*)/.exec(declaration);
      if (!m?.[1]) {
        throw new OpGenError(
          `${file}:${line}: ${k.kind}: cannot find the exported interface or type of the kind on this line. Declare it as \`export interface ${k.kind} { ... }\`.`,
        );
      }
      const rel = file.startsWith(prefix) ? file.slice(prefix.length) : file;
      const subresources = k.tags.filter((t) => t.name === 'subresource').map((t) => t.text.trim());
      return {
        group: k.group,
        version: k.version,
        kind: k.kind,
        plural: k.plural,
        namespaced: k.namespaced,
        typeName: m[1],
        sourceFile: file,
        groupDir: rel.split('/')[0] ?? k.group,
        status: subresources.some((s) => s === 'status' || s.startsWith('status ')),
        scale: subresources.some((s) => s === 'scale' || s.startsWith('scale ')),
      };
    })
    .sort((a, b) => {
      const ka = `${a.groupDir}/${a.version}/${a.kind}`;
      const kb = `${b.groupDir}/${b.version}/${b.kind}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
}

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { NAME_RESOLUTION_CODES } from '../../../src/source/ts-diagnostics.ts';

/**
 * Mutants of a project's API sources for the property tests of issue 14: a token deleted or
 * duplicated, a type renamed, an import broken, a controller-gen (Go) form marker inserted. The
 * oracle is the real TypeScript compiler (full lib, op-gen's own sources) on the API files.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export type MutationKind =
  | 'delete-token'
  | 'duplicate-token'
  | 'insert-punctuation'
  | 'delete-line'
  | 'rename-type'
  | 'break-import'
  | 'go-marker';

/** What `insert-punctuation` puts before a token: the characters a half-finished edit leaves. */
export const PUNCTUATION = [
  '{',
  '}',
  '(',
  ')',
  '<',
  '>',
  '[',
  ']',
  ',',
  ';',
  ':',
  '?',
  '|',
  '&',
  '=',
  "'",
  '.',
  '*/',
];

export interface MutationChoice {
  readonly file: number;
  readonly kind: MutationKind;
  readonly at: number;
  readonly variant: number;
}

export interface Mutant {
  /** The file changed (relative to the project) and its new text. */
  readonly file: string;
  readonly text: string;
  readonly description: string;
  /** For a Go-form marker: the 1-based line it was inserted at and the marker text. */
  readonly goMarker?: { readonly line: number; readonly marker: string };
}

/** Go-form markers a kubebuilder user writes; `rbac` ones belong to generate rbac. */
export const GO_MARKERS: readonly { readonly text: string; readonly rbac: boolean }[] = [
  { text: '+kubebuilder:validation:Minimum=0', rbac: false },
  { text: '+optional', rbac: false },
  { text: '+kubebuilder:validation:MaxLength=3', rbac: false },
  { text: '@kubebuilder:validation:Minimum 0', rbac: false },
  { text: '+kubebuilder:printcolumn:name="X",type=string,JSONPath=".spec.x"', rbac: false },
  { text: '+listType=atomic', rbac: false },
  { text: '+kubebuilder:validation:Minimun=1', rbac: false },
  { text: '+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get', rbac: true },
];

export const mutationChoice: fc.Arbitrary<MutationChoice> = fc.record({
  file: fc.nat(),
  kind: fc.constantFrom<MutationKind>(
    'delete-token',
    'delete-token',
    'duplicate-token',
    'duplicate-token',
    'insert-punctuation',
    'delete-line',
    'rename-type',
    'break-import',
    'go-marker',
  ),
  at: fc.nat(),
  variant: fc.nat(),
});

function tokens(text: string): { start: number; end: number }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const out: { start: number; end: number }[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    out.push({ start: scanner.getTokenStart(), end: scanner.getTokenEnd() });
  }
  return out;
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Applies a choice to one of `files` (path relative to the project → text); undefined when it has no target there. */
export function mutate(
  files: readonly { path: string; text: string }[],
  choice: MutationChoice,
): Mutant | undefined {
  const target = files[choice.file % files.length];
  if (!target) return undefined;
  const { path, text } = target;
  const pick = <T>(items: readonly T[]): T | undefined => items[choice.at % Math.max(items.length, 1)];
  switch (choice.kind) {
    case 'delete-token':
    case 'duplicate-token': {
      const token = pick(tokens(text));
      if (!token) return undefined;
      const word = text.slice(token.start, token.end);
      const next =
        choice.kind === 'delete-token'
          ? text.slice(0, token.start) + text.slice(token.end)
          : `${text.slice(0, token.end)} ${word}${text.slice(token.end)}`;
      return {
        file: path,
        text: next,
        description: `${choice.kind} \`${word}\` at ${path}:${lineAt(text, token.start)}`,
      };
    }
    case 'insert-punctuation': {
      const token = pick(tokens(text));
      if (!token) return undefined;
      const mark = PUNCTUATION[choice.variant % PUNCTUATION.length] ?? ';';
      return {
        file: path,
        text: text.slice(0, token.start) + mark + text.slice(token.start),
        description: `insert \`${mark}\` before \`${text.slice(token.start, token.end)}\` at ${path}:${lineAt(text, token.start)}`,
      };
    }
    case 'delete-line': {
      const lines = text.split('\n');
      const index = choice.at % lines.length;
      if ((lines[index] ?? '').trim() === '') return undefined;
      return {
        file: path,
        text: [...lines.slice(0, index), ...lines.slice(index + 1)].join('\n'),
        description: `delete line ${path}:${index + 1} \`${(lines[index] ?? '').trim()}\``,
      };
    }
    case 'rename-type': {
      const decls = [...text.matchAll(/\b(?:interface|type)\s+([A-Z]\w*)/g)];
      const decl = pick(decls);
      if (!decl?.[1] || decl.index === undefined) return undefined;
      const at = decl.index + decl[0].length;
      return {
        file: path,
        text: `${text.slice(0, at)}Renamed${text.slice(at)}`,
        description: `rename type ${decl[1]} at ${path}:${lineAt(text, at)}`,
      };
    }
    case 'break-import': {
      const imports = [...text.matchAll(/^import [^;]*?from '([^']+)';$/gm)];
      const imp = pick(imports);
      if (!imp?.[1] || imp.index === undefined) return undefined;
      const names = /\{([^}]*)\}/.exec(imp[0]);
      const breakName = choice.variant % 2 === 1 && names?.[1]?.trim();
      let line: string;
      if (breakName) {
        const first = names?.[1]?.split(',')[0]?.trim() ?? '';
        line = imp[0].replace(first, `${first}Missing`);
      } else {
        line = imp[0].replace(`'${imp[1]}'`, `'${imp[1].replace(/(\.ts)?$/, '-missing$1')}'`);
      }
      return {
        file: path,
        text: text.slice(0, imp.index) + line + text.slice(imp.index + imp[0].length),
        description: `break import \`${imp[0]}\` → \`${line}\``,
      };
    }
    case 'go-marker': {
      // A multi-line doc comment on a declaration the generators read (a type, a field, groupVersion).
      const ends = [
        ...text.matchAll(
          /\n([ \t]*)\*\/\n\s*(?:export (?:interface|type|const groupVersion)\b|(?:readonly\s+)?\w+\??:)/g,
        ),
      ].filter((m) => {
        const open = text.lastIndexOf('/*', m.index);
        return open >= 0 && text.startsWith('/**', open);
      });
      const end = pick(ends);
      if (!end || end.index === undefined) return undefined;
      const marker = GO_MARKERS[choice.variant % GO_MARKERS.length]?.text ?? '+optional';
      const indent = end[1] ?? '';
      const insert = `\n${indent}* ${marker}`;
      return {
        file: path,
        text: text.slice(0, end.index) + insert + text.slice(end.index),
        description: `insert ${marker} at ${path}:${lineAt(text, end.index) + 1}`,
        goMarker: { line: lineAt(text, end.index) + 1, marker },
      };
    }
  }
}

const KINDS: readonly MutationKind[] = [
  'delete-token',
  'duplicate-token',
  'insert-punctuation',
  'delete-line',
  'rename-type',
  'break-import',
  'go-marker',
];

/**
 * Every distinct mutant of `files` (by text), in a fixed order: the space the random choices draw
 * from, small enough to run whole (`npm run test:fuzz`).
 */
export function allMutants(files: readonly { path: string; text: string }[]): Mutant[] {
  const positions = Math.max(...files.map((f) => Math.max(tokens(f.text).length, f.text.split('\n').length)));
  const variants: Partial<Record<MutationKind, number>> = {
    'insert-punctuation': PUNCTUATION.length,
    'go-marker': GO_MARKERS.length,
    'break-import': 2,
  };
  const seen = new Map<string, Mutant>();
  for (let file = 0; file < files.length; file++) {
    for (const kind of KINDS) {
      for (let at = 0; at < positions; at++) {
        for (let variant = 0; variant < (variants[kind] ?? 1); variant++) {
          const m = mutate(files, { file, kind, at, variant });
          if (m && !seen.has(m.text)) seen.set(m.text, m);
        }
      }
    }
  }
  return [...seen.values()];
}

/**
 * The real TypeScript compiler on a project's API files: full ES2023 lib, strict, `op-gen` and
 * `op-gen/*` resolved to this repository's sources. Unchanged files (lib, op-gen) are parsed once.
 */
export class CompilerOracle {
  readonly #cache = new Map<string, ts.SourceFile>();
  readonly #options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    paths: {
      'op-gen': [join(ROOT, 'src/index.ts')],
      'op-gen/*': [join(ROOT, 'src/*/index.ts')],
      '@kubernetes/client-node': [join(ROOT, 'node_modules/@kubernetes/client-node')],
    },
  };
  #old: ts.Program | undefined;

  /**
   * `file:line:col TSnnnn message` for every error the compiler reports in `apiFiles` (absolute
   * paths → text) that op-gen promises to report: syntax (and grammar) errors and unresolved names
   * (NAME_RESOLUTION_CODES). Other type errors (e.g. TS2352 in a value) are the project's `tsc`'s;
   * `all` includes them.
   */
  errors(apiFiles: ReadonlyMap<string, string>, all = false): string[] {
    const base = ts.createCompilerHost(this.#options);
    const host: ts.CompilerHost = {
      ...base,
      fileExists: (f) => apiFiles.has(f) || base.fileExists(f),
      readFile: (f) => apiFiles.get(f) ?? base.readFile(f),
      getSourceFile: (fileName, languageVersion) => {
        const text = apiFiles.get(fileName);
        if (text !== undefined) return ts.createSourceFile(fileName, text, languageVersion, true);
        let sf = this.#cache.get(fileName);
        if (!sf) {
          const content = readFileSync(fileName, 'utf8');
          sf = ts.createSourceFile(fileName, content, languageVersion, true);
          this.#cache.set(fileName, sf);
        }
        return sf;
      },
    };
    const program = ts.createProgram({
      rootNames: [...apiFiles.keys()],
      options: this.#options,
      host,
      ...(this.#old ? { oldProgram: this.#old } : {}),
    });
    this.#old = program;
    const out: string[] = [];
    for (const name of apiFiles.keys()) {
      const sf = program.getSourceFile(name);
      if (!sf) continue;
      for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
        if (d.category !== ts.DiagnosticCategory.Error) continue;
        if (!all && d.code >= 2000 && !NAME_RESOLUTION_CODES.has(d.code)) continue;
        const { line, character } = sf.getLineAndCharacterOfPosition(d.start ?? 0);
        out.push(
          `${name}:${line + 1}:${character + 1} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      }
    }
    return out;
  }

  /**
   * `file:line:col TSnnnn message` for every syntax error of `files` (absolute paths → text): what
   * generate rbac promises to report in the controllers it reads (names are the project's `tsc`'s).
   */
  syntaxErrors(files: ReadonlyMap<string, string>): string[] {
    const out: string[] = [];
    for (const [name, text] of files) {
      const sf = ts.createSourceFile(name, text, ts.ScriptTarget.ES2023, true);
      const program = ts.createProgram({
        rootNames: [name],
        options: { noLib: true, noResolve: true, noEmit: true, types: [] },
        host: { ...ts.createCompilerHost({}), getSourceFile: (f) => (f === name ? sf : undefined) },
      });
      for (const d of program.getSyntacticDiagnostics(sf)) {
        const { line, character } = sf.getLineAndCharacterOfPosition(d.start ?? 0);
        out.push(
          `${name}:${line + 1}:${character + 1} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
      }
    }
    return out;
  }
}

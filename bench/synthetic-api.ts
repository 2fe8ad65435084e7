import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A synthetic API for benchmarks, described once as data and rendered per language: as op-gen
 * TypeScript types (here) and as Go types with the equivalent +kubebuilder markers
 * (bench/compare/synthetic-go.ts), so op-gen and controller-gen do the same work.
 *
 * Fields cycle through: bounded integers, patterned strings, enums, `listType=map` arrays of objects,
 * nested objects holding a map. Status has conditions, observedGeneration and replicas; every kind has
 * printer columns and the status subresource.
 */
export type SyntheticField =
  | {
      readonly kind: 'boundedInt';
      readonly name: string;
      readonly min: number;
      readonly max: number;
      readonly optional: boolean;
    }
  | {
      readonly kind: 'pattern';
      readonly name: string;
      readonly pattern: string;
      readonly maxLength: number;
      readonly optional: boolean;
    }
  | {
      readonly kind: 'enum';
      readonly name: string;
      readonly values: readonly string[];
      readonly optional: boolean;
    }
  | {
      readonly kind: 'listMap';
      readonly name: string;
      readonly itemType: string;
      readonly maxItems: number;
      readonly optional: boolean;
    }
  | { readonly kind: 'nested'; readonly name: string; readonly typeName: string; readonly optional: boolean };

export interface SyntheticKind {
  readonly kind: string;
  readonly plural: string;
  readonly fields: readonly SyntheticField[];
}

export interface SyntheticApi {
  readonly group: string;
  readonly version: string;
  readonly kinds: readonly SyntheticKind[];
}

export const SYNTHETIC_FIELD_KINDS = ['boundedInt', 'pattern', 'enum', 'listMap', 'nested'] as const;

/** The model: `kinds` kinds with `fields` spec fields each (default 100 × 20). */
export function syntheticApi(options: { kinds?: number; fields?: number } = {}): SyntheticApi {
  const kindCount = options.kinds ?? 100;
  const fieldCount = options.fields ?? 20;
  const kinds: SyntheticKind[] = [];
  for (let k = 0; k < kindCount; k++) {
    const kind = `Widget${String(k).padStart(3, '0')}`;
    const fields: SyntheticField[] = [];
    for (let f = 0; f < fieldCount; f++) {
      const category = SYNTHETIC_FIELD_KINDS[f % SYNTHETIC_FIELD_KINDS.length];
      const name = `${category}${f}`;
      const optional = f % 3 !== 0;
      switch (category) {
        case 'boundedInt':
          fields.push({ kind: 'boundedInt', name, min: f, max: 1000 + f, optional });
          break;
        case 'pattern':
          fields.push({
            kind: 'pattern',
            name,
            pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$',
            maxLength: 63,
            optional,
          });
          break;
        case 'enum':
          fields.push({ kind: 'enum', name, values: ['Alpha', 'Beta', `Gamma${f}`], optional });
          break;
        case 'listMap':
          fields.push({ kind: 'listMap', name, itemType: `${kind}Item${f}`, maxItems: 16, optional });
          break;
        default:
          fields.push({ kind: 'nested', name, typeName: `${kind}Nested${f}`, optional });
      }
    }
    kinds.push({ kind, plural: `${kind.toLowerCase()}s`, fields });
  }
  return { group: 'bench.example.com', version: 'v1', kinds };
}

/** The model as op-gen API sources: path (relative to the project) → content. */
export function renderTypeScript(api: SyntheticApi, apiDir = 'src/api'): Map<string, string> {
  const dir = `${apiDir}/bench/${api.version}`;
  const files = new Map<string, string>();
  files.set(
    `${dir}/groupversion.ts`,
    `export const groupVersion = { group: '${api.group}', version: '${api.version}' } as const;\n`,
  );
  for (const k of api.kinds) {
    const out: string[] = ["import type { Condition, int32, int64, ObjectMeta } from 'op-gen';", ''];
    const spec: string[] = [];
    for (const f of k.fields) {
      const q = f.optional ? '?' : '';
      switch (f.kind) {
        case 'boundedInt':
          spec.push(
            `  /**\n   * ${f.name} is a bounded integer.\n   * @minimum ${f.min}\n   * @maximum ${f.max}\n   */\n  ${f.name}${q}: int32;`,
          );
          break;
        case 'pattern':
          spec.push(
            `  /**\n   * ${f.name} is a DNS label.\n   * @pattern ${f.pattern}\n   * @maxLength ${f.maxLength}\n   */\n  ${f.name}${q}: string;`,
          );
          break;
        case 'enum':
          spec.push(
            `  /** ${f.name} is one of a few modes. */\n  ${f.name}${q}: ${f.values.map((v) => `'${v}'`).join(' | ')};`,
          );
          break;
        case 'listMap':
          out.push(
            `/** ${f.itemType} is one entry of a keyed list. */`,
            `export interface ${f.itemType} {`,
            '  /** name is the key. */',
            '  name: string;',
            '  /**',
            '   * weight of the entry.',
            '   * @minimum 0',
            '   */',
            '  weight?: int32;',
            '}',
            '',
          );
          spec.push(
            `  /**\n   * ${f.name} is a list keyed by name.\n   * @listType map\n   * @listMapKey name\n   * @maxItems ${f.maxItems}\n   */\n  ${f.name}${q}: ${f.itemType}[];`,
          );
          break;
        case 'nested':
          out.push(
            `/** ${f.typeName} groups settings. */`,
            `export interface ${f.typeName} {`,
            '  /** labels to apply. */',
            '  labels?: Record<string, string>;',
            '  /**',
            '   * count of things.',
            '   * @minimum 1',
            '   */',
            '  count: int32;',
            '  /** note is free text. */',
            '  note?: string;',
            '}',
            '',
          );
          spec.push(`  /** ${f.name} holds nested settings. */\n  ${f.name}${q}: ${f.typeName};`);
          break;
      }
    }
    out.push(
      `/** ${k.kind}Spec is the desired state. */`,
      `export interface ${k.kind}Spec {`,
      ...spec,
      '}',
      '',
      `/** ${k.kind}Status is the observed state. */`,
      `export interface ${k.kind}Status {`,
      '  /**',
      '   * conditions of the object.',
      '   * @listType map',
      '   * @listMapKey type',
      '   */',
      '  conditions?: Condition[];',
      '  /** observedGeneration is the last generation reconciled. */',
      '  observedGeneration?: int64;',
      '  /** replicas observed. */',
      '  replicas?: int32;',
      '}',
      '',
      '/**',
      ` * ${k.kind} is a synthetic kind.`,
      ' * @kind',
      ' * @subresource status',
      ' * @printcolumn name=Replicas type=integer jsonPath=.status.replicas',
      ' * @printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp',
      ' */',
      `export interface ${k.kind} {`,
      '  apiVersion?: string;',
      '  kind?: string;',
      '  metadata?: ObjectMeta;',
      `  spec: ${k.kind}Spec;`,
      `  status?: ${k.kind}Status;`,
      '}',
      '',
    );
    files.set(`${dir}/${k.kind.toLowerCase()}_types.ts`, out.join('\n'));
  }
  return files;
}

/** Writes rendered files below `root`. */
export function writeFiles(root: string, files: ReadonlyMap<string, string>): void {
  for (const [path, content] of files) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { DIFF_RULES, type DiffRule, type Finding } from './types.ts';

/** The default acknowledgements file, relative to the project root. */
export const ACKNOWLEDGEMENTS_FILE = '.op-gen/crd-diff.yaml';

/** One breaking change accepted on purpose (`version` and `path` absent: any). */
export interface Acknowledgement {
  readonly crd: string;
  readonly version?: string;
  readonly path?: string;
  readonly rule: DiffRule;
  readonly reason: string;
  /** Position in the file (1-based), for messages. */
  readonly index: number;
}

const RULES: ReadonlySet<string> = new Set<string>(DIFF_RULES);

const KEYS = new Set(['crd', 'version', 'path', 'rule', 'reason']);

/**
 * Reads the acknowledgements file: `acknowledged:` with entries `{ crd, version?, path?, rule, reason }`.
 * A missing file is no acknowledgement when it is the default one, an error when given explicitly.
 */
export function readAcknowledgements(cwd: string, file: string | undefined): Acknowledgement[] {
  const shown = file ?? ACKNOWLEDGEMENTS_FILE;
  const full = resolve(cwd, shown);
  if (!existsSync(full)) {
    if (file === undefined) return [];
    throw new OpGenError(`${shown}: no such file`);
  }
  let data: unknown;
  try {
    data = yamlPackage().parse(readFileSync(full, 'utf8'));
  } catch (err) {
    throw new OpGenError(`${shown}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  if (data === null || data === undefined) return [];
  const list =
    typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>).acknowledged
      : undefined;
  if (!Array.isArray(list)) {
    throw new OpGenError(
      `${shown}: expected \`acknowledged:\` with a list of { crd, version, path, rule, reason }`,
    );
  }
  const problems: string[] = [];
  const acks: Acknowledgement[] = [];
  list.forEach((entry: unknown, i) => {
    const where = `${shown}: acknowledged[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${where}: expected a mapping with crd, rule and reason`);
      return;
    }
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e))
      if (!KEYS.has(key)) problems.push(`${where}: unknown key \`${key}\` (known: ${[...KEYS].join(', ')})`);
    for (const key of ['crd', 'rule', 'reason'])
      if (typeof e[key] !== 'string' || e[key] === '')
        problems.push(`${where}: \`${key}\` is required (a string)`);
    for (const key of ['version', 'path'])
      if (e[key] !== undefined && typeof e[key] !== 'string')
        problems.push(`${where}: \`${key}\` must be a string`);
    if (typeof e.rule === 'string' && e.rule !== '' && !RULES.has(e.rule))
      problems.push(`${where}: unknown rule \`${e.rule}\` (one of ${[...RULES].join(', ')})`);
    if (typeof e.crd !== 'string' || typeof e.rule !== 'string' || typeof e.reason !== 'string') return;
    acks.push({
      crd: e.crd,
      rule: e.rule as DiffRule,
      reason: e.reason,
      index: i + 1,
      ...(typeof e.version === 'string' ? { version: e.version } : {}),
      ...(typeof e.path === 'string' ? { path: e.path } : {}),
    });
  });
  if (problems.length > 0) throw new OpGenError(problems.join('\n'));
  return acks;
}

export function matches(ack: Acknowledgement, finding: Finding): boolean {
  return (
    ack.crd === finding.crd &&
    ack.rule === finding.rule &&
    (ack.version === undefined || ack.version === finding.version) &&
    (ack.path === undefined || ack.path === finding.path)
  );
}

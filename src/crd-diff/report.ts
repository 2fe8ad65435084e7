import type { JsonValue } from '../markers/types.ts';
import type { Acknowledgement } from './acknowledgements.ts';
import type { Finding, Severity } from './types.ts';

/** A finding with the acknowledgement that accepts it, if any. */
export interface ReportedFinding extends Finding {
  /** The reason given in the acknowledgements file. */
  readonly acknowledged?: string;
}

export interface DiffReport {
  readonly findings: readonly ReportedFinding[];
  /** Acknowledgements that matched no breaking finding (stale or mistyped). */
  readonly unmatchedAcknowledgements: readonly Acknowledgement[];
  readonly counts: Readonly<Record<Severity, number>> & { readonly acknowledged: number };
  /** Breaking findings not acknowledged: the command exits 1. */
  readonly failed: boolean;
}

const LABEL: Record<Severity, string> = { breaking: 'BREAKING', risky: 'risky   ', safe: 'safe    ' };

/** A value as one short line: strings as they are, the rest as JSON; long ones cut. */
export function showValue(value: JsonValue | undefined): string {
  if (value === undefined) return '(none)';
  const line = JSON.stringify(value).replace(/\\n/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** The report for people: per CRD and version, one line per finding, then the counts. */
export function renderText(report: DiffReport): string {
  const lines: string[] = [];
  let crd: string | undefined;
  let version: string | undefined;
  for (const f of report.findings) {
    if (f.crd !== crd) {
      lines.push(f.crd);
      crd = f.crd;
      version = undefined;
    }
    if (f.version !== version) {
      if (f.version !== undefined) lines.push(`  ${f.version}`);
      version = f.version;
    }
    const indent = f.version === undefined ? '  ' : '    ';
    const where = f.path === undefined ? '' : `${f.path}: `;
    const change =
      f.old === undefined && f.new === undefined ? '' : `: ${showValue(f.old)} → ${showValue(f.new)}`;
    const ack = f.acknowledged === undefined ? '' : ` (acknowledged: ${f.acknowledged})`;
    lines.push(`${indent}${LABEL[f.severity]} ${where}${f.message}${change} [${f.rule}]${ack}`);
  }
  for (const a of report.unmatchedAcknowledgements) {
    lines.push(
      `acknowledgement ${a.index} (${[a.crd, a.version, a.path, a.rule].filter((x) => x !== undefined).join(' ')}) matches no breaking change: remove it or fix it`,
    );
  }
  const { breaking, risky, safe, acknowledged } = report.counts;
  if (report.findings.length === 0) lines.push('no changes between the CRDs');
  lines.push(
    `${breaking} breaking${acknowledged > 0 ? ` (${acknowledged} acknowledged)` : ''}, ${risky} risky, ${safe} safe`,
  );
  return `${lines.join('\n')}\n`;
}

/** The report for programs (`--json`): stable keys, the findings in the text's order. */
export function renderJson(report: DiffReport): string {
  return `${JSON.stringify(
    {
      failed: report.failed,
      counts: report.counts,
      findings: report.findings.map(ordered),
      unmatchedAcknowledgements: report.unmatchedAcknowledgements.map(({ index, ...a }) => ({
        entry: index,
        ...a,
      })),
    },
    null,
    2,
  )}\n`;
}

/** A finding's keys in one order, whatever order the checks built them in. */
function ordered(f: ReportedFinding): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { severity: f.severity, rule: f.rule, crd: f.crd };
  if (f.version !== undefined) out.version = f.version;
  if (f.path !== undefined) out.path = f.path;
  out.message = f.message;
  if (f.old !== undefined) out.old = f.old;
  if (f.new !== undefined) out.new = f.new;
  if (f.acknowledged !== undefined) out.acknowledged = f.acknowledged;
  return out;
}

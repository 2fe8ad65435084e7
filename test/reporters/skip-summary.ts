import { relative } from 'node:path';

/**
 * A node:test reporter that names every skipped test and suite at the end of the run, so a skip can
 * not hide: node's own summary counts a skipped `describe` as nothing at all (`tests 0`, `skipped 0`).
 * Skips for want of control plane binaries are counted apart, with how to get the binaries. Under CI
 * any skip fails the run: CI runs every test.
 *
 *   node --test --test-reporter=spec --test-reporter-destination=stdout \
 *     --test-reporter=./test/reporters/skip-summary.ts --test-reporter-destination=stdout ...
 */

/** The part of a node:test reporter event this reporter reads. */
export interface ReporterEvent {
  readonly type: string;
  readonly data?: {
    readonly name?: string;
    readonly file?: string;
    readonly skip?: string | boolean;
    readonly details?: { readonly type?: string };
  };
}

export interface Skipped {
  readonly name: string;
  readonly file: string;
  readonly kind: 'suite' | 'test';
  readonly reason: string;
}

/** The prefix of controlPlaneSkip()'s reason (src/testing/availability.ts). */
export const CONTROL_PLANE_REASON = 'no control plane binaries';

export function skippedOf(event: ReporterEvent, cwd = process.cwd()): Skipped | undefined {
  if ((event.type !== 'test:pass' && event.type !== 'test:fail') || !event.data?.skip) return undefined;
  const { name = '', file = '', skip, details } = event.data;
  return {
    name,
    file: file ? relative(cwd, file) : '',
    kind: details?.type === 'suite' ? 'suite' : 'test',
    reason: typeof skip === 'string' ? skip : '',
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function counted(items: readonly Skipped[]): string {
  const suites = items.filter((s) => s.kind === 'suite').length;
  const tests = items.length - suites;
  return [suites && plural(suites, 'suite'), tests && plural(tests, 'test')].filter(Boolean).join(' and ');
}

const line = (s: Skipped): string => `ℹ   ${s.kind} "${s.name}"${s.file ? ` (${s.file})` : ''}`;

/** The lines printed at the end of the run; none when nothing was skipped. */
export function skipSummary(skipped: readonly Skipped[]): string[] {
  const controlPlane = skipped.filter((s) => s.reason.startsWith(CONTROL_PLANE_REASON));
  const other = skipped.filter((s) => !s.reason.startsWith(CONTROL_PLANE_REASON));
  const lines: string[] = [];
  if (controlPlane.length > 0) {
    lines.push(
      `ℹ ${counted(controlPlane)} skipped (every test inside a skipped suite too): no control plane binaries; ` +
        'build them with `npm run setup:envtest` (needs Go), or set KUBEBUILDER_ASSETS',
      ...controlPlane.map(line),
    );
  }
  if (other.length > 0) {
    lines.push(
      `ℹ ${counted(other)} skipped for other reasons:`,
      ...other.map((s) => `${line(s)}${s.reason ? `: ${s.reason}` : ''}`),
    );
  }
  return lines;
}

/** Under CI every test runs: a skip there (a `{ skip }`, `it.skip`, `t.skip()`) fails the run. */
export function ciVerdict(
  skipped: readonly Skipped[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  if (!env['CI'] || skipped.length === 0) return [];
  return [`✖ CI is set and ${counted(skipped)} skipped: in CI every test must run; remove the skip`];
}

export default async function* skipSummaryReporter(
  source: AsyncIterable<ReporterEvent>,
): AsyncGenerator<string> {
  const skipped: Skipped[] = [];
  for await (const event of source) {
    const s = skippedOf(event);
    if (s) skipped.push(s);
  }
  const verdict = ciVerdict(skipped, process.env);
  const lines = [...skipSummary(skipped), ...verdict];
  if (verdict.length > 0) process.exitCode = 1;
  if (lines.length > 0) yield `\n${lines.join('\n')}\n`;
}

import { readFileSync } from 'node:fs';

/** Peak resident set size of a live process in MB, from /proc/<pid>/status (VmHWM). */
export function peakRssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return match?.[1] ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) a live process has used, in seconds, from /proc/<pid>/stat (clock ticks
 * of 1/100 s, Linux's USER_HZ).
 */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export interface Summary {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('summarize: no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

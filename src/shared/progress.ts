/**
 * Progress of a long step (a `go build` of the control plane, `op-gen run`'s first build): on a
 * terminal one line that updates in place (`⠋ building etcd v3.7.0 12 s`), elsewhere (a pipe, a file,
 * `CI=true`) plain lines a log reads well: one when the step starts, one every `plainEveryMs` while it
 * runs, and one when it ends.
 */

/** What progress writes to; `isTTY` and `columns` are those of a terminal stream. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressClock {
  now(): number;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface ProgressOptions {
  readonly stream: ProgressStream;
  /** Environment to read `CI` from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Prefix of every line, e.g. `setup:envtest`. */
  readonly prefix?: string;
  /** On a terminal: redraw period (default 100 ms). */
  readonly tickMs?: number;
  /** Not on a terminal: a "still ..." line this often (default 30 s; 0 for none). */
  readonly plainEveryMs?: number;
  readonly clock?: ProgressClock;
}

export interface Progress {
  /** Starts a step; `detail` is shown after the step name (e.g. the expected duration). */
  start(step: string, detail?: string): void;
  /** Replaces the detail of the running step. */
  update(detail: string): void;
  /** Ends the running step with a final line (`✓ built etcd in 12.3 s`). */
  succeed(message: string): void;
  /** Ends the running step with a failure line. */
  fail(message: string): void;
  /** Whether progress draws an updating line (a terminal outside CI). */
  readonly interactive: boolean;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const realClock: ProgressClock = {
  now: () => Date.now(),
  setInterval: (fn, ms) => {
    const handle = setInterval(fn, ms);
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** True on a terminal outside CI: where an updating line is wanted. */
export function isInteractive(
  stream: ProgressStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const ci = env.CI;
  return stream.isTTY === true && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function createProgress(options: ProgressOptions): Progress {
  const { stream } = options;
  const clock = options.clock ?? realClock;
  const interactive = isInteractive(stream, options.env ?? process.env);
  const prefix = options.prefix ? `${options.prefix}: ` : '';
  const plainEveryMs = options.plainEveryMs ?? 30_000;
  let step: string | undefined;
  let detail = '';
  let startedAt = 0;
  let frame = 0;
  let timer: unknown;

  const fit = (line: string): string => {
    const width = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
    return line.length < width ? line : `${line.slice(0, Math.max(0, width - 2))}…`;
  };
  const draw = (): void => {
    if (step === undefined) return;
    const elapsed = seconds(clock.now() - startedAt);
    const glyph = FRAMES[frame++ % FRAMES.length] ?? '-';
    stream.write(`\r\x1b[2K${fit(`${glyph} ${prefix}${step}${detail ? ` (${detail})` : ''} ${elapsed}`)}`);
  };
  const plain = (line: string): void => void stream.write(`${prefix}${line}\n`);
  const end = (mark: string, message: string): void => {
    if (timer !== undefined) clock.clearInterval(timer);
    timer = undefined;
    if (interactive) stream.write(`\r\x1b[2K${prefix}${mark} ${message}\n`);
    else plain(message);
    step = undefined;
  };

  return {
    interactive,
    start(name, startDetail = '') {
      if (step !== undefined) end('✓', `${step} done`);
      step = name;
      detail = startDetail;
      startedAt = clock.now();
      if (interactive) {
        draw();
        timer = clock.setInterval(draw, options.tickMs ?? 100);
      } else {
        plain(`${name}${detail ? ` (${detail})` : ''} ...`);
        if (plainEveryMs > 0) {
          timer = clock.setInterval(
            () =>
              plain(
                `still ${step ?? name} (${seconds(clock.now() - startedAt)} so far${detail ? `, ${detail}` : ''})`,
              ),
            plainEveryMs,
          );
        }
      }
    },
    update(next) {
      detail = next;
      if (interactive) draw();
    },
    succeed(message) {
      end('✓', message);
    },
    fail(message) {
      end('✗', message);
    },
  };
}

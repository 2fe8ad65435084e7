export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Readonly<Record<string, unknown>>;

/** Structured JSON logging, one object per line, with context fields carried by child loggers. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  readonly write?: (line: string) => void;
  readonly now?: () => string;
}

/**
 * An error as a log field: name, message, stack, the API server's answer (statusCode, reason, causes)
 * of an ApiError, the socket error code, and its cause chain (each cause serialized the same way).
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const e = err as Error & {
    statusCode?: unknown;
    reason?: unknown;
    causes?: readonly unknown[];
    code?: unknown;
  };
  const out: Record<string, unknown> = { name: e.name, message: e.message };
  if (typeof e.statusCode === 'number') out.statusCode = e.statusCode;
  if (typeof e.reason === 'string') out.reason = e.reason;
  if (Array.isArray(e.causes) && e.causes.length > 0) out.causes = e.causes;
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (e.stack) out.stack = e.stack;
  if (e.cause !== undefined) out.cause = depth < 8 ? serializeError(e.cause, depth + 1) : String(e.cause);
  return out;
}

export function createLogger(options: LoggerOptions = {}, context: LogFields = {}): Logger {
  const min = LEVELS[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date().toISOString());
  const log = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (LEVELS[level] < min) return;
    const entry: Record<string, unknown> = { ts: now(), level, msg, ...context };
    if (fields)
      for (const [k, v] of Object.entries(fields))
        entry[k] = k === 'error' || k === 'err' ? serializeError(v) : v;
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    child: (fields) => createLogger(options, { ...context, ...fields }),
    enabled: (level) => LEVELS[level] >= min,
  };
}

export function isLogLevel(value: string): value is LogLevel {
  return value in LEVELS;
}

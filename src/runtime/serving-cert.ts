import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { isDns1123Subdomain } from '../k8s-names/dns.ts';
import { realClock, type Clock, type TimerHandle } from './clock.ts';
import type { Logger } from './logger.ts';
import type { ServingCertificate } from './servers.ts';

/** The file names in a certificate directory: a cert-manager or `kubernetes.io/tls` Secret's keys. */
export const CERT_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';

/** How long a generated certificate is valid: one year, as controller-runtime's. */
const SELF_SIGNED_VALIDITY_MS = 365 * 24 * 3600_000;

/**
 * A self-signed certificate made in memory (EC P-256, SHA-256, one year), for `localhost`,
 * 127.0.0.1, ::1 and the host name (a pod's name). Like controller-runtime's fallback, it only
 * encrypts: a client that wants to verify the server needs a certificate from a directory.
 */
export async function selfSignedCertificate(clock: Clock = realClock): Promise<ServingCertificate> {
  // Loaded on first use: a manager that serves plain HTTP never loads the X.509 code. selfsigned is
  // CommonJS: its exports are the namespace's default, in Node and in an `op-gen build` bundle alike
  // (a bundler gives a dynamically imported CommonJS module no named exports).
  const { generate } = (await import('selfsigned')).default;
  const notBeforeDate = new Date(clock.now() - 60_000);
  const host = hostname().toLowerCase();
  const dnsNames = isDns1123Subdomain(host) && host !== 'localhost' ? ['localhost', host] : ['localhost'];
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + SELF_SIGNED_VALIDITY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...dnsNames.map((value) => ({ type: 2 as const, value })),
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** Throws unless `cert` and `key` are PEM and belong together (what the TLS server would say later). */
function validate(pair: ServingCertificate, where: string): void {
  try {
    createSecureContext({ cert: pair.cert, key: pair.key });
  } catch (err) {
    throw new Error(`${where}: not a usable certificate and key: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

export interface CertificateDirOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How often to look for a renewed certificate. Default 10 s. */
  readonly pollMs?: number;
  /** Which server the certificate is for, in messages. Default `metrics`. */
  readonly purpose?: string;
}

/**
 * `tls.crt` and `tls.key` in a directory (e.g. a mounted cert-manager Secret), re-read when they
 * change: every `pollMs` both files are read again (through the symlinks a Secret volume swaps on
 * update), and a changed, usable pair is handed to `onChange`. A pair that does not load (say, a
 * new certificate beside the old key) is logged and the previous one kept until the next look.
 * Like controller-runtime's certwatcher.
 */
export class CertificateDir {
  readonly dir: string;
  private readonly certFile: string;
  private readonly keyFile: string;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly pollMs: number;
  private readonly purpose: string;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private rejected: ServingCertificate | undefined;
  current: ServingCertificate | undefined;

  constructor(dir: string, options: CertificateDirOptions = {}) {
    this.dir = dir;
    this.certFile = join(dir, CERT_FILE);
    this.keyFile = join(dir, KEY_FILE);
    this.clock = options.clock ?? realClock;
    this.logger = options.logger;
    this.pollMs = options.pollMs ?? 10_000;
    this.purpose = options.purpose ?? 'metrics';
  }

  private async read(): Promise<ServingCertificate> {
    try {
      return {
        cert: await readFile(this.certFile, 'utf8'),
        key: await readFile(this.keyFile, 'utf8'),
      };
    } catch (err) {
      throw new Error(
        `${this.purpose} certificate directory ${this.dir}: cannot read ${CERT_FILE} and ${KEY_FILE}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** Reads the pair; throws when a file is missing or the pair is not usable. */
  async load(): Promise<ServingCertificate> {
    const pair = await this.read();
    validate(pair, `${this.purpose} certificate directory ${this.dir}`);
    this.current = pair;
    return pair;
  }

  /** Looks once: resolves true when a changed, usable pair was loaded and handed to `onChange`. */
  async check(onChange: (pair: ServingCertificate) => void): Promise<boolean> {
    try {
      const pair = await this.read();
      if (pair.cert === this.current?.cert && pair.key === this.current.key) return false;
      // A pair already found unusable is reported once, not on every look.
      if (pair.cert === this.rejected?.cert && pair.key === this.rejected.key) return false;
      try {
        validate(pair, `${this.purpose} certificate directory ${this.dir}`);
      } catch (err) {
        this.rejected = pair;
        throw err;
      }
      this.current = pair;
      onChange(pair);
      this.logger?.info(`reloaded the ${this.purpose} serving certificate`, {
        dir: this.dir,
        validTo: new X509Certificate(pair.cert).validTo,
      });
      return true;
    } catch (err) {
      this.logger?.error(
        `could not reload the ${this.purpose} serving certificate; keeping the previous one`,
        {
          error: err,
        },
      );
      return false;
    }
  }

  /** Polls until stop(). */
  watch(onChange: (pair: ServingCertificate) => void): void {
    const tick = (): void => {
      this.timer = this.clock.setTimeout(() => {
        void this.check(onChange).finally(() => {
          if (!this.stopped) tick();
        });
      }, this.pollMs);
    };
    this.stopped = false;
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

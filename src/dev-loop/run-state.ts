import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isNotFound } from '../client/api-error.ts';
import { defineKind } from '../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../client/resource-client.ts';
import type { Transport } from '../client/transport.ts';
import { OpGenError } from '../errors.ts';
import { writeFilesAtomically } from '../shared/atomic-write.ts';
import type { CrdConversion, WebhookConfiguration } from '../shared/local-webhooks.ts';

/** Where `op-gen run` keeps what it changed in the cluster, relative to the project (gitignored). */
export const RUN_STATE_FILE = join('.op-gen', 'run-state.json');

/**
 * What `op-gen run` changed in the cluster, written before each change, so that its exit, or the
 * next `op-gen run` after a kill -9, puts every object back as it was.
 */
export interface RunState {
  readonly version: 1;
  /** The op-gen run that wrote it. */
  readonly pid: number;
  readonly server: string;
  readonly context: string;
  /**
   * The manager serving the webhooks (its process group): a kill -9 of op-gen run leaves it running,
   * holding the webhook port; the cleanup stops it.
   */
  readonly managerPid?: number;
  /** Webhook configurations it created or replaced; `previous` is what was there (null: nothing). */
  readonly webhookConfigurations: {
    readonly kind: WebhookConfiguration['kind'];
    readonly name: string;
    readonly previous: WebhookConfiguration | null;
  }[];
  /** CRDs whose conversion it pointed at this machine; `previous` is the conversion before (null: no CRD). */
  readonly crds: { readonly name: string; readonly previous: CrdConversion | null }[];
}

export function readRunState(cwd: string): RunState | undefined {
  const file = join(cwd, RUN_STATE_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as RunState;
    if (state.version !== 1) throw new Error(`unknown version ${String(state.version)}`);
    return state;
  } catch (err) {
    throw new OpGenError(
      `${RUN_STATE_FILE}: cannot read it (${(err as Error).message}); check the webhook configurations and CRD conversion in the cluster by hand, then delete the file`,
    );
  }
}

export function writeRunState(cwd: string, state: RunState): void {
  writeFilesAtomically([{ path: join(cwd, RUN_STATE_FILE), content: `${JSON.stringify(state, null, 2)}\n` }]);
}

export function removeRunState(cwd: string): void {
  rmSync(join(cwd, RUN_STATE_FILE), { force: true });
}

/** Whether a process with this pid runs (signal 0; EPERM: it runs, as someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const configurationClient = (transport: Transport, kind: WebhookConfiguration['kind']) =>
  new ResourceClient(
    transport,
    defineKind<WebhookConfiguration & ObjectLike>({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      kind,
      plural: `${kind.toLowerCase()}s`,
      namespaced: false,
    }),
  );

interface CrdObject extends ObjectLike {
  spec?: { conversion?: CrdConversion };
}

export const crdClient = (transport: Transport) =>
  new ResourceClient(
    transport,
    defineKind<CrdObject>({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
    }),
  );

export const webhookConfigurationClient = configurationClient;

/** An object as it can be created again: no server-set metadata. */
function recreatable(obj: WebhookConfiguration): WebhookConfiguration {
  const meta = (obj.metadata ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = { name: meta.name };
  for (const key of ['labels', 'annotations']) if (meta[key] !== undefined) metadata[key] = meta[key];
  return { ...structuredClone(obj), metadata: metadata as WebhookConfiguration['metadata'] };
}

/**
 * Puts back what `state` records: each webhook configuration deleted, or replaced by what was there
 * before; each CRD's conversion set back (strategy None where there was no CRD before). Every step is
 * tried; the ones that failed are one OpGenError (the state file stays, for another try).
 */
export async function restoreRunState(transport: Transport, state: RunState): Promise<string[]> {
  const done: string[] = [];
  const failed: string[] = [];
  for (const c of [...state.webhookConfigurations].reverse()) {
    const client = configurationClient(transport, c.kind);
    try {
      try {
        await client.delete({ name: c.name });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (c.previous) {
        await client.create(recreatable(c.previous));
        done.push(`${c.kind} ${c.name} restored`);
      } else done.push(`${c.kind} ${c.name} deleted`);
    } catch (err) {
      failed.push(`${c.kind} ${c.name}: ${(err as Error).message}`);
    }
  }
  const crds = crdClient(transport);
  for (const c of state.crds) {
    try {
      await crds.patch({ name: c.name }, 'json', [
        { op: 'replace', path: '/spec/conversion', value: c.previous ?? { strategy: 'None' } },
      ]);
      done.push(`CRD ${c.name} conversion ${c.previous ? 'restored' : 'set back to None'}`);
    } catch (err) {
      if (isNotFound(err)) continue;
      failed.push(`CRD ${c.name}: ${(err as Error).message}`);
    }
  }
  if (failed.length > 0)
    throw new OpGenError(
      `could not put back ${failed.length} change(s) op-gen run made in the cluster (kept in ${RUN_STATE_FILE}; run op-gen run --cleanup to try again):\n${failed.map((f) => `  ${f}`).join('\n')}`,
    );
  return done;
}

/**
 * Before anything else, `op-gen run` cleans up after an op-gen run of this project that was killed
 * (kill -9, a crash): restores what its state file records. Refuses when that op-gen run is still
 * running, or the state is of another cluster.
 */
export async function cleanupPreviousRun(
  cwd: string,
  transport: Transport,
  target: { readonly server: string },
  log: (line: string) => void,
): Promise<void> {
  const state = readRunState(cwd);
  if (!state) return;
  if (state.pid !== process.pid && processAlive(state.pid))
    throw new OpGenError(
      `another op-gen run (pid ${state.pid}) serves this project's webhooks (${RUN_STATE_FILE}); stop it first`,
    );
  if (state.server !== target.server)
    throw new OpGenError(
      `${RUN_STATE_FILE} records changes in the cluster at ${state.server} (context ${state.context}), not ${target.server}: run op-gen run --cleanup with that context, or delete the file once that cluster is gone`,
    );
  log(
    `op-gen run: putting back what the op-gen run (pid ${state.pid}) that did not stop changed in the cluster`,
  );
  if (state.managerPid !== undefined && processGroupAlive(state.managerPid)) {
    process.kill(-state.managerPid, 'SIGKILL');
    log(`  stopped its manager (process group ${state.managerPid})`);
  }
  for (const line of await restoreRunState(transport, state)) log(`  ${line}`);
  removeRunState(cwd);
}

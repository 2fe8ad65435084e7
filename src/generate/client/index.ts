/**
 * `op-gen generate client`: a typed client module for every served kind of the API folder, each a
 * thin wrapper over the generic ResourceClient of op-gen/runtime. See docs/generate-client.md.
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { changedFiles, writeFilesAtomically, type OutputFile } from '../../shared/atomic-write.ts';
import { loadApiModel } from '../crd/index.ts';
import { clientKinds } from './client-kinds.ts';
import { renderClient } from './render-client.ts';

export { clientKinds, type ClientKind } from './client-kinds.ts';
export { renderClient } from './render-client.ts';

export interface GenerateClientOptions {
  readonly cwd: string;
  /** API source folder relative to cwd. Default `src/api`. */
  readonly apiDir?: string;
  /** Output folder relative to cwd. Default `src/clients`. */
  readonly out?: string;
  readonly check?: boolean;
  /** Module the clients import the runtime from. Default `op-gen/runtime`. */
  readonly runtimeModule?: string;
}

export interface GenerateClientResult {
  readonly files: readonly OutputFile[];
  readonly changed: readonly string[];
}

export async function renderClients(options: GenerateClientOptions): Promise<OutputFile[]> {
  const apiDir = options.apiDir ?? 'src/api';
  const kinds = clientKinds(await loadApiModel({ cwd: options.cwd, apiDir }), options.cwd, apiDir);
  if (kinds.length === 0) {
    throw new OpGenError(
      `${join(apiDir)}: no served kind found (an exported interface with @kind). Create one with \`op-gen create api\`.`,
    );
  }
  const outDir = resolve(options.cwd, options.out ?? 'src/clients');
  const seen = new Map<string, string>();
  const files: OutputFile[] = [];
  for (const k of kinds) {
    const path = join(outDir, k.groupDir, k.version, `${k.kind.toLowerCase()}.ts`);
    const other = seen.get(path);
    if (other) {
      throw new OpGenError(
        `${k.sourceFile}: ${k.kind} ${k.group}/${k.version} clashes with ${other} (both would be written to ${relative(options.cwd, path)}). Give each kind a distinct name.`,
      );
    }
    seen.set(path, k.sourceFile);
    let typeModule = relative(dirname(path), resolve(options.cwd, k.sourceFile)).split(sep).join('/');
    if (!typeModule.startsWith('.')) typeModule = `./${typeModule}`;
    files.push({
      path,
      content: await renderClient(k, typeModule, options.runtimeModule ?? 'op-gen/runtime'),
    });
  }
  return files;
}

export async function generateClients(options: GenerateClientOptions): Promise<GenerateClientResult> {
  const files = await renderClients(options);
  const changed = options.check ? changedFiles(files) : writeFilesAtomically(files);
  return { files, changed };
}

import type { ClientKind } from './client-kinds.ts';

/** The print width of the generated modules (prettier's `printWidth` in the fallback style). */
export const CLIENT_PRINT_WIDTH = 110;

/** What one client module is made of, names already resolved against clashes. */
export interface ClientSourceInput extends ClientKind {
  /** The name the module uses for the kind's type (`typeName`, or `<Kind>Object` on a clash). */
  readonly localType: string;
  readonly typeModule: string;
  readonly runtimeModule: string;
}

/**
 * A method signature as prettier prints it at this width: on one line when `name(params): ret {` fits,
 * else one parameter per line with a trailing comma. (None of these methods has a sole parameter that
 * prettier would hug.)
 */
function method(name: string, params: readonly string[], ret: string): string {
  const oneLine = `  ${name}(${params.join(', ')}): ${ret} {`;
  if (oneLine.length <= CLIENT_PRINT_WIDTH) return oneLine;
  return [`  ${name}(`, ...params.map((p) => `    ${p},`), `  ): ${ret} {`].join('\n');
}

/** `export type Name = { a; b };`, or one member per line when that is too long. */
function objectTypeAlias(name: string, members: readonly string[]): string {
  const oneLine = `export type ${name} = { ${members.join('; ')} };`;
  if (oneLine.length <= CLIENT_PRINT_WIDTH) return oneLine;
  return [`export type ${name} = {`, ...members.map((m) => `  ${m};`), '};'].join('\n');
}

/** `export type Name = Generic<A, B>;`, or one type argument per line when that is too long. */
function genericTypeAlias(name: string, generic: string, args: readonly string[]): string {
  const oneLine = `export type ${name} = ${generic}<${args.join(', ')}>;`;
  if (oneLine.length <= CLIENT_PRINT_WIDTH) return oneLine;
  return [
    `export type ${name} = ${generic}<`,
    ...args.map((a, i) => `  ${a}${i < args.length - 1 ? ',' : ''}`),
    '>;',
  ].join('\n');
}

/** `export type Name = Base & { readonly namespace?: string };`, the object broken open when too long. */
function namespacedOptions(name: string, base: string, namespaced: boolean): string {
  if (!namespaced) return `export type ${name} = ${base};`;
  const oneLine = `export type ${name} = ${base} & { readonly namespace?: string };`;
  if (oneLine.length <= CLIENT_PRINT_WIDTH) return oneLine;
  return [`export type ${name} = ${base} & {`, '  readonly namespace?: string;', '};'].join('\n');
}

/** One method: optional doc comment, signature, a one-line body. */
function member(
  doc: string | undefined,
  name: string,
  params: readonly string[],
  ret: string,
  body: string,
): string {
  return [...(doc ? [`  /** ${doc} */`] : []), method(name, params, ret), `    ${body}`, '  }'].join('\n');
}

const RUNTIME_IMPORTS = [
  'Informer',
  'Lister',
  'ResourceClient',
  'defineKind',
  'type ApplyConfiguration',
  'type ApplyOptions',
  'type DeleteOptions',
  'type InformerOptions',
  'type JsonPatchOperation',
  'type ListOptions',
  'type MergePatch',
  'type ObjectList',
  'type Scale',
  'type Transport',
  'type WatchEvent',
  'type WatchOptions',
  'type WriteOptions',
];

/** The names a member's text uses: the kind, its local type name. */
interface Names {
  readonly K: string;
  readonly T: string;
}

/** The constructor and the calls every kind has (get, list, watch, create, replace, patch, apply, delete). */
function coreMembers({ K, T }: Names): string[] {
  return [
    [
      '  /** The generic client core this one wraps. */',
      `  readonly core: ResourceClient<${T}>;`,
      '',
      '  constructor(transport: Transport) {',
      `    this.core = new ResourceClient(transport, ${K}Kind);`,
      '  }',
    ].join('\n'),
    member(
      undefined,
      'get',
      [`key: ${K}Key`, 'options: { signal?: AbortSignal } = {}'],
      `Promise<${T}>`,
      'return this.core.get(key, options);',
    ),
    member(
      'One page; pass `limit`, then the returned `metadata.continue` for the next.',
      'list',
      [`options: ${K}ListOptions = {}`],
      `Promise<ObjectList<${T}>>`,
      'return this.core.list(options);',
    ),
    member(
      'Every page, following `continue`.',
      'listAll',
      [`options: Omit<${K}ListOptions, 'continue'> = {}`],
      `Promise<ObjectList<${T}>>`,
      'return this.core.listAll(options);',
    ),
    member(
      'Streams typed events until the server ends the watch or `signal` aborts.',
      'watch',
      [`options: ${K}WatchOptions`, `onEvent: (event: WatchEvent<${T}>) => void`],
      'Promise<void>',
      'return this.core.watch(options, onEvent);',
    ),
    member(
      undefined,
      'create',
      [`obj: ${T}`, 'options?: WriteOptions'],
      `Promise<${T}>`,
      'return this.core.create(obj, options);',
    ),
    member(
      'PUT: fails with Conflict when `metadata.resourceVersion` is stale.',
      'replace',
      [`obj: ${T}`, 'options?: WriteOptions'],
      `Promise<${T}>`,
      'return this.core.replace(obj, options);',
    ),
    member(
      'JSON merge patch (RFC 7386): `null` removes a field.',
      'mergePatch',
      [`key: ${K}Key`, `patch: MergePatch<${T}>`, 'options?: WriteOptions'],
      `Promise<${T}>`,
      "return this.core.patch(key, 'merge', patch, options);",
    ),
    member(
      'JSON patch (RFC 6902).',
      'jsonPatch',
      [`key: ${K}Key`, 'operations: readonly JsonPatchOperation[]', 'options?: WriteOptions'],
      `Promise<${T}>`,
      "return this.core.patch(key, 'json', operations, options);",
    ),
    member(
      "Server-side apply of `obj`'s fields, owned by `options.fieldManager`; `force` takes conflicting fields.",
      'apply',
      [`obj: ${K}Apply`, 'options: ApplyOptions'],
      `Promise<${T}>`,
      'return this.core.apply(obj, options);',
    ),
    member(
      undefined,
      'delete',
      [`key: ${K}Key`, 'options?: DeleteOptions'],
      'Promise<unknown>',
      'return this.core.delete(key, options);',
    ),
  ];
}

/** The status subresource's calls. */
function statusMembers({ K, T }: Names): string[] {
  return [
    member(undefined, 'getStatus', [`key: ${K}Key`], `Promise<${T}>`, 'return this.core.getStatus(key);'),
    member(
      'PUT on the status subresource: only status changes are kept; stale resourceVersion is a Conflict.',
      'replaceStatus',
      [`obj: ${T}`, 'options?: WriteOptions'],
      `Promise<${T}>`,
      'return this.core.replaceStatus(obj, options);',
    ),
    member(
      undefined,
      'mergePatchStatus',
      [`key: ${K}Key`, `patch: MergePatch<${T}>`, 'options?: WriteOptions'],
      `Promise<${T}>`,
      "return this.core.patchStatus(key, 'merge', patch, options);",
    ),
    member(
      undefined,
      'jsonPatchStatus',
      [`key: ${K}Key`, 'operations: readonly JsonPatchOperation[]', 'options?: WriteOptions'],
      `Promise<${T}>`,
      "return this.core.patchStatus(key, 'json', operations, options);",
    ),
    member(
      'Server-side apply to the status subresource.',
      'applyStatus',
      [`obj: ${K}Apply`, 'options: ApplyOptions'],
      `Promise<${T}>`,
      'return this.core.applyStatus(obj, options);',
    ),
  ];
}

/** The scale subresource's calls. */
function scaleMembers({ K }: Names): string[] {
  return [
    member(undefined, 'getScale', [`key: ${K}Key`], 'Promise<Scale>', 'return this.core.getScale(key);'),
    member(
      'Sets spec.replicas through the scale subresource.',
      'scale',
      [`key: ${K}Key`, 'replicas: number', 'options?: WriteOptions'],
      'Promise<Scale>',
      'return this.core.patchScale(key, replicas, options);',
    ),
  ];
}

/** The informer and lister constructors for the op-gen runtime. */
function cacheMembers({ T }: Names): string[] {
  return [
    member(
      'A typed informer (list + watch into a local store) for the op-gen runtime; call `start()`.',
      'informer',
      [`options: InformerOptions<${T}>`],
      `Informer<${T}>`,
      'return new Informer(this.core, options);',
    ),
    member(
      "Typed reads from an informer's store.",
      'lister',
      [`informer: Informer<${T}>`],
      `Lister<${T}>`,
      'return new Lister(informer);',
    ),
  ];
}

/** The import lines, the kind constant and the key, apply and options types before the class. */
function preamble(k: ClientSourceInput): string[] {
  const T = k.localType;
  const K = k.kind;
  const typeImport = T === k.typeName ? T : `${k.typeName} as ${T}`;
  const keyMembers = k.namespaced
    ? ['readonly namespace: string', 'readonly name: string']
    : ['readonly name: string'];
  const applyKey = k.namespaced ? '{ namespace: string; name: string }' : '{ name: string }';
  const imports = RUNTIME_IMPORTS.filter((name) => k.scale || name !== 'type Scale');
  return [
    `// Code generated by op-gen generate client from ${k.sourceFile}. DO NOT EDIT.`,
    'import {',
    ...imports.map((name) => `  ${name},`),
    `} from '${k.runtimeModule}';`,
    `import type { ${typeImport} } from '${k.typeModule}';`,
    '',
    `/** The ${K} kind (${k.group}/${k.version}), ${k.namespaced ? 'namespaced' : 'cluster-scoped'}. */`,
    `export const ${K}Kind = defineKind<${T}>({`,
    `  group: '${k.group}',`,
    `  version: '${k.version}',`,
    `  kind: '${K}',`,
    `  plural: '${k.plural}',`,
    `  namespaced: ${k.namespaced},`,
    '});',
    '',
    `/** Names one ${K}. */`,
    objectTypeAlias(`${K}Key`, keyMembers),
    '',
    `/** A server-side apply configuration of ${K}: the fields the field manager owns. */`,
    genericTypeAlias(`${K}Apply`, 'ApplyConfiguration', [T, applyKey]),
    '',
    `/** Options of list and watch${k.namespaced ? ' (omit `namespace` for all namespaces)' : ''}. */`,
    namespacedOptions(`${K}ListOptions`, "Omit<ListOptions, 'namespace'>", k.namespaced),
    namespacedOptions(`${K}WatchOptions`, "Omit<WatchOptions, 'namespace'>", k.namespaced),
    '',
  ];
}

/**
 * The typed client module of one kind, laid out as prettier lays it out with the generator's fixed
 * style (single quotes, width 110, trailing commas). Lines that would need prettier's other breaking
 * rules are left long; `fitsClientStyle` says whether the text can be used as it is.
 */
export function clientSource(k: ClientSourceInput): string {
  const names: Names = { K: k.kind, T: k.localType };
  const members = [
    ...coreMembers(names),
    ...(k.status ? statusMembers(names) : []),
    ...(k.scale ? scaleMembers(names) : []),
    ...cacheMembers(names),
  ];
  return [
    ...preamble(k),
    '/**',
    ` * Typed client for ${k.kind} (${k.group}/${k.version}): every call goes to the API server; errors are \`ApiError\`s`,
    ' * (`isNotFound`, `isConflict`, `isAlreadyExists`, `isForbidden`, `isInvalid`).',
    ' */',
    `export class ${k.kind}Client {`,
    members.join('\n\n'),
    '}',
    '',
  ].join('\n');
}

/**
 * Whether `clientSource`'s text is already what prettier prints: every line that is code (not a
 * comment) fits the width, and no string needs escaping. Anything else (very long names or module
 * paths) goes through prettier.
 */
export function fitsClientStyle(text: string, k: ClientSourceInput): boolean {
  if (/['\\\n\r]/.test(k.typeModule + k.runtimeModule + k.sourceFile)) return false;
  for (const line of text.split('\n')) {
    if (line.length <= CLIENT_PRINT_WIDTH) continue;
    const trimmed = line.trimStart();
    if (trimmed.startsWith('//') || trimmed.startsWith('/**') || trimmed.startsWith('*')) continue;
    return false;
  }
  return true;
}

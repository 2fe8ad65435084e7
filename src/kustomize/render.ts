import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { OpGenError } from '../errors.ts';
import { readYamlDocuments } from '../shared/yaml-documents.ts';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from '../json/json-patch.ts';
import { isObject, type Json, type JsonObject } from '../json/json.ts';
import {
  BUILTIN_NAME_REFERENCES,
  fixNameReferences,
  NameReferenceError,
  type NameReference,
} from './name-reference.ts';
import { gvkOf, idOf, nameOf, namespaceOf, priorNames, type Resource } from './resource.ts';
import { legacySort } from './sort.ts';
import { applyStrategicMerge, StrategicMergeError } from './strategic-merge.ts';
import {
  applyCommonAnnotations,
  applyCommonLabels,
  applyImages,
  applyLabels,
  applyNamespace,
  applyPrefixSuffix,
  applyReplicas,
  type ImageEntry,
  type LabelEntry,
} from './transformers.ts';

/** Kustomization fields op-gen renders as `kustomize build` does. */
export const SUPPORTED_FIELDS = [
  'apiVersion',
  'kind',
  'metadata',
  'resources',
  'bases',
  'namespace',
  'namePrefix',
  'nameSuffix',
  'labels',
  'commonLabels',
  'commonAnnotations',
  'images',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'replicas',
  'configurations',
] as const;

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export interface RenderOptions {
  /** Paths in messages are relative to this folder (default: the kustomization folder). */
  readonly root?: string;
}

export interface RenderedObject {
  readonly object: JsonObject;
  /** The file it was read from, relative to `root`. */
  readonly file: string;
}

interface Context {
  readonly root: string;
  /** Folders being built, to report cycles. */
  readonly stack: string[];
}

interface Level {
  resources: Resource[];
  nameReferences: NameReference[];
}

class Fail extends OpGenError {}

function rel(ctx: Context, path: string): string {
  return relative(ctx.root, path) || '.';
}

function fail(ctx: Context, file: string, field: string, message: string): never {
  throw new Fail(`${rel(ctx, file)}: ${field}: ${message}`);
}

function parseYamlDocs(ctx: Context, path: string, text?: string): Json[] {
  const docs = readYamlDocuments(
    text ?? readFileSync(path, 'utf8'),
    (p) =>
      new Fail(
        `${rel(ctx, path)}:${p.line}: YAML ${p.kind === 'syntax' ? 'syntax error' : 'error'}: ${p.message}`,
      ),
  );
  const out: Json[] = [];
  for (const { value } of docs) if (value !== null) out.push(value as Json);
  return out;
}

function kustomizationFile(dir: string): string | undefined {
  for (const name of KUSTOMIZATION_FILES) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

function stringMap(
  ctx: Context,
  file: string,
  field: string,
  value: Json | undefined,
): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) fail(ctx, file, field, 'must be a map of strings');
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]),
  );
}

function stringList(ctx: Context, file: string, field: string, value: Json | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    fail(ctx, file, field, 'must be a list of paths');
  return value as string[];
}

function readResourceFile(ctx: Context, path: string): Resource[] {
  const out: Resource[] = [];
  const add = (value: Json, where: string): void => {
    if (!isObject(value)) fail(ctx, path, where, 'a resource must be a YAML mapping');
    if (value.kind === 'List' && Array.isArray(value.items)) {
      value.items.forEach((item, i) => add(item, `${where}items[${i}]`));
      return;
    }
    if (typeof value.kind !== 'string' || nameOf(value) === '')
      fail(ctx, path, where || 'document', 'missing kind or metadata.name');
    out.push({ object: value, file: rel(ctx, path), previousNames: [], previousNamespaces: [] });
  };
  parseYamlDocs(ctx, path).forEach((doc) => add(doc, ''));
  return out;
}

function isRemote(entry: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ||
    /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(entry) ||
    entry.startsWith('git@')
  );
}

/** Matches kustomize's patch target selector (name and namespace are regular expressions). */
interface Target {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

function readTarget(ctx: Context, file: string, field: string, value: Json | undefined): Target | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) fail(ctx, file, field, 'must be a map');
  for (const key of Object.keys(value)) {
    if (!['group', 'version', 'kind', 'name', 'namespace'].includes(key))
      fail(
        ctx,
        file,
        `${field}.${key}`,
        'op-gen renders targets by group, version, kind, name and namespace only (no label or annotation selectors)',
      );
  }
  const str = (k: string): string | undefined => (typeof value[k] === 'string' ? value[k] : undefined);
  const t: { -readonly [K in keyof Target]: Target[K] } = {};
  for (const k of ['group', 'version', 'kind', 'name', 'namespace'] as const) {
    const v = str(k);
    if (v !== undefined) t[k] = v;
  }
  return t;
}

function matchesTarget(r: Resource, t: Target): boolean {
  const gvk = gvkOf(r.object);
  const re = (pattern: string, value: string): boolean => new RegExp(`^(?:${pattern})$`).test(value);
  if (t.group !== undefined && t.group !== gvk.group) return false;
  if (t.version !== undefined && t.version !== gvk.version) return false;
  if (t.kind !== undefined && t.kind !== gvk.kind) return false;
  if (t.name !== undefined && ![nameOf(r.object), ...priorNames(r)].some((n) => re(t.name as string, n)))
    return false;
  if (t.namespace !== undefined && !re(t.namespace, namespaceOf(r.object))) return false;
  return true;
}

/**
 * The patch's own apiVersion/kind/name/namespace picks its target when no selector is given (a
 * patch without a namespace names an object in the default namespace, as kustomize reads it).
 */
function selfTarget(patch: JsonObject): Target {
  const gvk = gvkOf(patch);
  const quote = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ns = namespaceOf(patch);
  return {
    ...(gvk.group ? { group: gvk.group } : {}),
    version: gvk.version,
    kind: gvk.kind,
    name: quote(nameOf(patch)),
    namespace: ns === '' || ns === 'default' ? '|default' : quote(ns),
  };
}

function asOperations(ctx: Context, file: string, field: string, docs: Json): JsonPatchOperation[] {
  if (!Array.isArray(docs)) fail(ctx, file, field, 'a JSON6902 patch must be a list of operations');
  return docs.map((op, i) => {
    if (!isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string')
      fail(ctx, file, `${field}[${i}]`, 'each operation needs op and path');
    return op as unknown as JsonPatchOperation;
  });
}

function applyPatch(
  ctx: Context,
  level: Level,
  file: string,
  field: string,
  text: string,
  source: string,
  target: Target | undefined,
  forceJson: boolean,
): void {
  const docs = parseYamlDocs(ctx, source, text);
  const isJsonPatch = forceJson || (docs.length === 1 && Array.isArray(docs[0]));
  if (isJsonPatch) {
    if (!target) fail(ctx, file, field, 'a JSON6902 patch needs a target');
    const ops = asOperations(ctx, file, field, docs[0] ?? []);
    const matched = level.resources.filter((r) => matchesTarget(r, target));
    if (matched.length === 0)
      fail(ctx, file, field, `no resource matches the target ${JSON.stringify(target)}`);
    for (const r of matched) {
      try {
        applyJsonPatch(r.object, ops);
      } catch (err) {
        if (err instanceof JsonPatchError) fail(ctx, file, field, `on ${idOf(r.object)}: ${err.message}`);
        throw err;
      }
    }
    return;
  }
  for (const doc of docs) {
    if (!isObject(doc))
      fail(
        ctx,
        file,
        field,
        'a strategic merge patch must be a YAML mapping (or a list of JSON6902 operations)',
      );
    const t = target ?? selfTarget(doc);
    const matched = level.resources.filter((r) => matchesTarget(r, t));
    if (!target && matched.length > 1)
      fail(
        ctx,
        file,
        field,
        `the patch's ${doc.kind ?? ''} ${nameOf(doc)} matches ${matched.length} objects; give it a namespace or a target`,
      );
    if (matched.length === 0)
      fail(
        ctx,
        file,
        field,
        `no resource matches ${target ? `the target ${JSON.stringify(target)}` : `the patch's ${doc.kind ?? ''} ${nameOf(doc)}`}`,
      );
    for (const r of matched) {
      try {
        applyStrategicMerge(r.object, structuredClone(doc));
      } catch (err) {
        if (err instanceof StrategicMergeError) fail(ctx, file, field, err.message);
        throw err;
      }
    }
  }
}

function readPatchText(
  ctx: Context,
  dir: string,
  file: string,
  field: string,
  path: string,
): { text: string; source: string } {
  const full = resolve(dir, path);
  if (!existsSync(full) || !statSync(full).isFile()) fail(ctx, file, field, `${path} does not exist`);
  return { text: readFileSync(full, 'utf8'), source: full };
}

/** A patch entry's text: inline (`patch`) or from a file (`path`, relative to the kustomization). */
function inlineOrFilePatch(
  ctx: Context,
  dir: string,
  file: string,
  field: string,
  entry: { readonly patch?: Json; readonly path?: Json },
): { text: string; source: string } {
  if (typeof entry.patch === 'string') return { text: entry.patch, source: file };
  if (typeof entry.path === 'string') return readPatchText(ctx, dir, file, `${field}.path`, entry.path);
  return fail(ctx, file, field, 'needs path or patch');
}

function readConfigurations(
  ctx: Context,
  dir: string,
  file: string,
  value: Json | undefined,
): NameReference[] {
  const out: NameReference[] = [];
  stringList(ctx, file, 'configurations', value).forEach((path, i) => {
    const where = `configurations[${i}]`;
    const full = resolve(dir, path);
    if (!existsSync(full)) fail(ctx, file, where, `${path} does not exist`);
    for (const doc of parseYamlDocs(ctx, full)) {
      if (!isObject(doc)) fail(ctx, full, 'document', 'must be a YAML mapping');
      for (const key of Object.keys(doc)) {
        if (key !== 'nameReference')
          fail(ctx, full, key, 'op-gen renders only nameReference entries of transformer configurations');
      }
      if (!Array.isArray(doc.nameReference)) fail(ctx, full, 'nameReference', 'must be a list');
      for (const entry of doc.nameReference) {
        if (!isObject(entry) || typeof entry.kind !== 'string' || !Array.isArray(entry.fieldSpecs))
          fail(ctx, full, 'nameReference', 'each entry needs kind and fieldSpecs');
        out.push(entry as unknown as NameReference);
      }
    }
  });
  return out;
}

function checkFields(ctx: Context, file: string, k: JsonObject): void {
  for (const key of Object.keys(k)) {
    if (!(SUPPORTED_FIELDS as readonly string[]).includes(key)) {
      fail(
        ctx,
        file,
        key,
        `op-gen's kustomize renderer does not render this field (it renders ${SUPPORTED_FIELDS.filter((f) => !['apiVersion', 'kind', 'metadata'].includes(f)).join(', ')}). Run with kubectl on PATH (op-gen then uses \`kubectl kustomize\`), or remove the field`,
      );
    }
  }
}

/** One kustomization being built: its folder, file, parsed document and the level it fills. */
interface LevelStep {
  readonly ctx: Context;
  readonly dir: string;
  readonly file: string;
  readonly k: JsonObject;
  readonly level: Level;
}

/** `bases` and `resources`: files read and folders built, in order; two objects with one id are an error. */
function addResources(step: LevelStep): void {
  const { ctx, dir, file, k, level } = step;
  const seen = new Map<string, string>();
  const entries = [
    ...stringList(ctx, file, 'bases', k.bases),
    ...stringList(ctx, file, 'resources', k.resources),
  ];
  entries.forEach((entry, i) => {
    const where = `resources[${i}]`;
    if (isRemote(entry)) fail(ctx, file, where, `${entry}: remote resources are not rendered by op-gen`);
    if (isAbsolute(entry))
      fail(
        ctx,
        file,
        where,
        `${entry}: kustomize refuses absolute paths; write it relative to the kustomization`,
      );
    const full = resolve(dir, entry);
    if (!existsSync(full)) fail(ctx, file, where, `${entry} does not exist`);
    let added: Resource[];
    if (statSync(full).isDirectory()) {
      const sub = buildLevel(ctx, full);
      added = sub.resources;
      level.nameReferences.push(...sub.nameReferences);
    } else added = readResourceFile(ctx, full);
    for (const r of added) {
      const id = idOf(r.object);
      const before = seen.get(id);
      if (before !== undefined)
        fail(
          ctx,
          file,
          where,
          `${id} from ${r.file} is already there (from ${before}); kustomize refuses two objects with one id`,
        );
      seen.set(id, r.file);
      level.resources.push(r);
    }
  });
}

/** `patchesStrategicMerge` and `patches`, in that order. */
function applyPatchFields(step: LevelStep): void {
  const { ctx, dir, file, k, level } = step;
  stringList(ctx, file, 'patchesStrategicMerge', k.patchesStrategicMerge).forEach((entry, i) => {
    const field = `patchesStrategicMerge[${i}]`;
    const inline = entry.includes('\n');
    const { text, source } = inline
      ? { text: entry, source: file }
      : readPatchText(ctx, dir, file, field, entry);
    applyPatch(ctx, level, file, field, text, source, undefined, false);
  });
  if (k.patches !== undefined && k.patches !== null) {
    if (!Array.isArray(k.patches)) fail(ctx, file, 'patches', 'must be a list');
    k.patches.forEach((p, i) => {
      const field = `patches[${i}]`;
      if (!isObject(p)) fail(ctx, file, field, 'must be a map with path or patch');
      for (const key of Object.keys(p))
        if (!['path', 'patch', 'target', 'options'].includes(key))
          fail(ctx, file, `${field}.${key}`, 'unknown field');
      if (p.options !== undefined)
        fail(
          ctx,
          file,
          `${field}.options`,
          'patch options (allowNameChange, allowKindChange) are not rendered by op-gen',
        );
      const target = readTarget(ctx, file, `${field}.target`, p.target);
      const { text, source } = inlineOrFilePatch(ctx, dir, file, field, p);
      applyPatch(ctx, level, file, field, text, source, target, false);
    });
  }
}

/** `namespace`, `namePrefix`/`nameSuffix`, `labels`, `commonLabels`, `commonAnnotations`. */
function applyNameAndLabelFields(step: LevelStep): void {
  const { ctx, file, k, level } = step;
  const namespace = typeof k.namespace === 'string' ? k.namespace : '';
  if (namespace) applyNamespace(level.resources, namespace);
  const prefix = typeof k.namePrefix === 'string' ? k.namePrefix : '';
  const suffix = typeof k.nameSuffix === 'string' ? k.nameSuffix : '';
  if (prefix || suffix) applyPrefixSuffix(level.resources, prefix, suffix);
  if (k.labels !== undefined && k.labels !== null) {
    if (!Array.isArray(k.labels)) fail(ctx, file, 'labels', 'must be a list');
    k.labels.forEach((entry, i) => {
      const field = `labels[${i}]`;
      if (!isObject(entry)) fail(ctx, file, field, 'must be a map with pairs');
      for (const key of Object.keys(entry))
        if (!['pairs', 'includeSelectors', 'includeTemplates'].includes(key))
          fail(
            ctx,
            file,
            `${field}.${key}`,
            'not rendered by op-gen (it renders pairs, includeSelectors, includeTemplates)',
          );
      const label: LabelEntry = {
        pairs: stringMap(ctx, file, `${field}.pairs`, entry.pairs),
        includeSelectors: entry.includeSelectors === true,
        includeTemplates: entry.includeTemplates === true,
      };
      applyLabels(level.resources, label);
    });
  }
  const commonLabels = stringMap(ctx, file, 'commonLabels', k.commonLabels);
  if (Object.keys(commonLabels).length > 0) applyCommonLabels(level.resources, commonLabels);
  const annotations = stringMap(ctx, file, 'commonAnnotations', k.commonAnnotations);
  if (Object.keys(annotations).length > 0) applyCommonAnnotations(level.resources, annotations);
}

/** `patchesJson6902`: each needs a target. */
function applyJson6902Fields(step: LevelStep): void {
  const { ctx, dir, file, k, level } = step;
  if (k.patchesJson6902 !== undefined && k.patchesJson6902 !== null) {
    if (!Array.isArray(k.patchesJson6902)) fail(ctx, file, 'patchesJson6902', 'must be a list');
    k.patchesJson6902.forEach((p, i) => {
      const field = `patchesJson6902[${i}]`;
      if (!isObject(p)) fail(ctx, file, field, 'must be a map with target and path or patch');
      const target = readTarget(ctx, file, `${field}.target`, p.target);
      if (!target) fail(ctx, file, `${field}.target`, 'is required');
      const { text, source } = inlineOrFilePatch(ctx, dir, file, field, p);
      applyPatch(ctx, level, file, field, text, source, target, true);
    });
  }
}

/** `replicas` and `images`. */
function applyReplicaAndImageFields(step: LevelStep): void {
  const { ctx, file, k, level } = step;
  if (k.replicas !== undefined && k.replicas !== null) {
    if (!Array.isArray(k.replicas)) fail(ctx, file, 'replicas', 'must be a list');
    const entries = k.replicas.map((r, i) => {
      if (!isObject(r) || typeof r.name !== 'string' || typeof r.count !== 'number')
        fail(ctx, file, `replicas[${i}]`, 'needs name and a numeric count');
      return { name: r.name, count: r.count };
    });
    applyReplicas(level.resources, entries);
  }
  if (k.images !== undefined && k.images !== null) {
    if (!Array.isArray(k.images)) fail(ctx, file, 'images', 'must be a list');
    const entries = k.images.map((img, i): ImageEntry => {
      const field = `images[${i}]`;
      if (!isObject(img) || typeof img.name !== 'string') fail(ctx, file, field, 'needs name');
      for (const key of Object.keys(img))
        if (!['name', 'newName', 'newTag', 'digest', 'tagSuffix'].includes(key))
          fail(ctx, file, `${field}.${key}`, 'unknown field (name, newName, newTag, digest, tagSuffix)');
      const str = (key: string): string | undefined => {
        const v = img[key];
        if (v === undefined || v === null) return undefined;
        return typeof v === 'string' ? v : String(v);
      };
      const out: { -readonly [K in keyof ImageEntry]: ImageEntry[K] } = { name: img.name };
      for (const key of ['newName', 'newTag', 'digest', 'tagSuffix'] as const) {
        const v = str(key);
        if (v !== undefined) out[key] = v;
      }
      return out;
    });
    applyImages(level.resources, entries);
  }
}

function buildLevel(ctx: Context, dir: string): Level {
  const file = kustomizationFile(dir);
  if (!file) throw new Fail(`${rel(ctx, dir)}: no kustomization.yaml in this folder`);
  if (ctx.stack.includes(dir)) throw new Fail(`${rel(ctx, file)}: resources: cycle through ${rel(ctx, dir)}`);
  ctx.stack.push(dir);
  try {
    const docs = parseYamlDocs(ctx, file);
    const k = docs[0] ?? {};
    if (!isObject(k)) fail(ctx, file, 'document', 'a kustomization must be a YAML mapping');
    checkFields(ctx, file, k);
    const step: LevelStep = { ctx, dir, file, k, level: { resources: [], nameReferences: [] } };
    addResources(step);
    step.level.nameReferences.push(...readConfigurations(ctx, dir, file, k.configurations));
    // Transformers in kustomize's order.
    applyPatchFields(step);
    applyNameAndLabelFields(step);
    applyJson6902Fields(step);
    applyReplicaAndImageFields(step);
    return step.level;
  } finally {
    ctx.stack.pop();
  }
}

/**
 * What `kustomize build <dir>` writes, as objects in its order, for the kustomization features op-gen
 * renders (SUPPORTED_FIELDS; docs/bundle.md lists the limits). Any other feature is an OpGenError
 * naming the file and field, never skipped.
 */
export function renderKustomization(dir: string, options: RenderOptions = {}): RenderedObject[] {
  const absolute = resolve(dir);
  const ctx: Context = { root: resolve(options.root ?? absolute), stack: [] };
  const level = buildLevel(ctx, absolute);
  try {
    fixNameReferences(level.resources, [...BUILTIN_NAME_REFERENCES, ...level.nameReferences]);
  } catch (err) {
    if (err instanceof NameReferenceError) throw new Fail(err.message);
    throw err;
  }
  return legacySort(level.resources).map((r) => ({ object: r.object, file: r.file }));
}

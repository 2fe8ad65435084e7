import { existsSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError, UsageError } from '../errors.ts';
import type { OutputFile } from '../shared/atomic-write.ts';
import type { GeneratorPlan } from '../generation/contract.ts';
import { emit } from '../generation/emit.ts';
import {
  apiGroup,
  PROJECT_FILE,
  renderProjectFile,
  requireProjectFile,
  withScaffoldCommand,
  type ProjectFile,
  type ProjectResource,
  type ProjectWebhooks,
} from '../project/project-file.ts';
import { projectHeader } from './boilerplate.ts';
import { runGeneratorsAfter, type GeneratingIo, type ScaffoldResult } from './run-generators.ts';
import { addKustomizeResource, insertAboveMarker, readScaffoldedFile } from './edits.ts';
import { camelCase, kebabCase } from './names.ts';
import { renderTemplateSet, type RenderedFile } from './render.ts';

export interface CreateWebhookOptions {
  /** The project root (holds op-gen.yaml). */
  readonly dir: string;
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
  readonly defaulting?: boolean;
  readonly validation?: boolean;
  readonly conversion?: boolean;
  /** With `conversion`: the versions converted to and from `version` (the hub). */
  readonly spokes?: readonly string[];
  /** Overwrite handlers that exist already. */
  readonly force?: boolean;
  readonly skipGenerate?: boolean;
  /** Write nothing: report the files that would be created or changed (and generate nothing). */
  readonly check?: boolean;
}

/** `create webhook` runs `generate webhook` afterwards unless skipGenerate. */
export type CreateWebhookIo = GeneratingIo;
export type CreateWebhookResult = ScaffoldResult & {
  /** With `check`: the files that would be created or changed (relative to the project); else []. */
  readonly outOfDate: readonly string[];
};

export const WEBHOOKS_INDEX = 'src/webhooks/index.ts';
const IMPORTS_MARKER = 'op-gen:scaffold:imports';
const WEBHOOKS_MARKER = 'op-gen:scaffold:webhooks';
const MAIN = 'src/main.ts';
const DEFAULT_KUSTOMIZATION = 'config/default/kustomization.yaml';
const MANAGER_PATCH = 'manager_webhook_patch.yaml';
const PACKAGE_JSON = 'package.json';

/** controller-runtime's admission paths (op-gen/runtime's webhookPath gives the same). */
export function admissionPath(
  type: 'mutate' | 'validate',
  group: string,
  version: string,
  kind: string,
): string {
  return `/${type}-${group.replaceAll('.', '-')}-${version}-${kind.toLowerCase()}`;
}

function readText(root: string, path: string): string {
  return readScaffoldedFile(root, path, 'op-gen create webhook');
}

/** A module specifier from the folder of `from` to `to` (both relative to the project root). */
function importPath(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** main.ts registers the webhooks after the controllers. */
function registerInMain(text: string, file: string): string {
  if (text.includes("from './webhooks/index.ts'")) return text;
  const lines = text.split('\n');
  const importAt = lines.findIndex((l) => l.includes("from './controllers/index.ts'"));
  const callAt = lines.findIndex((l) => l.trim() === 'registerControllers(mgr);');
  if (importAt < 0 || callAt < 0) {
    throw new OpGenError(
      `${file}: cannot find \`import { registerControllers } from './controllers/index.ts'\` and \`registerControllers(mgr);\`, ` +
        "after which op-gen registers the webhooks. Add `import { registerWebhooks } from './webhooks/index.ts';` and " +
        '`registerWebhooks(mgr);` yourself, then run the command again.',
    );
  }
  const indent = /^\s*/.exec(lines[callAt] ?? '')?.[0] ?? '';
  lines.splice(callAt + 1, 0, `${indent}registerWebhooks(mgr);`);
  lines.splice(importAt + 1, 0, "import { registerWebhooks } from './webhooks/index.ts';");
  return lines.join('\n');
}

/** config/default deploys config/webhook and config/certmanager and patches the manager for the webhook server. */
function enableInDefault(text: string, file: string): string {
  const { isMap, isSeq, parseDocument } = yamlPackage();
  let out = addKustomizeResource(text, '../webhook', file);
  out = addKustomizeResource(out, '../certmanager', file);
  const doc = parseDocument(out);
  const patches = doc.get('patches', true);
  const entry = { path: MANAGER_PATCH, target: { kind: 'Deployment' } };
  if (patches === undefined || patches === null) {
    doc.set('patches', doc.createNode([entry]));
  } else if (isSeq(patches)) {
    if (patches.items.some((p) => isMap(p) && p.get('path') === MANAGER_PATCH)) return out;
    patches.flow = false;
    patches.add(doc.createNode(entry));
  } else {
    throw new OpGenError(`${file}: \`patches\` must be a list. Fix it, then run the command again.`);
  }
  return doc.toString({ lineWidth: 0, indent: 2, indentSeq: true });
}

/**
 * `npm run generate` runs `op-gen generate webhook` too. The scaffold's script, `op-gen generate`,
 * already does once op-gen.yaml records the webhook (projectGenerators); a script that names each
 * generator (scaffolded before the script became `op-gen generate`, or written by hand) gets
 * `&& op-gen generate webhook`.
 */
function withGenerateWebhook(text: string, file: string): string {
  let pkg: { scripts?: Record<string, string> };
  try {
    pkg = JSON.parse(text) as typeof pkg;
  } catch (err) {
    throw new OpGenError(
      `${file}: not valid JSON (${(err as Error).message}). Fix it, then run the command again.`,
    );
  }
  const script = pkg.scripts?.generate;
  if (script === undefined || script.includes('generate webhook')) return text;
  if (script.split('&&').some((step) => /^(npx )?op-gen generate$/.test(step.trim()))) return text;
  pkg.scripts = { ...pkg.scripts, generate: `${script} && op-gen generate webhook` };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function requireFlags(options: CreateWebhookOptions): void {
  if (!options.group || !options.version || !options.kind) {
    throw new UsageError(
      'create webhook needs --group, --version and --kind (of a kind `op-gen create api` added).',
    );
  }
  if (!options.defaulting && !options.validation && !options.conversion) {
    throw new UsageError(
      'create webhook needs at least one of --defaulting, --programmatic-validation, --conversion: which webhook to scaffold?',
    );
  }
  if (options.conversion && (options.spokes ?? []).length === 0) {
    throw new UsageError(
      '--conversion needs --spoke <version>[,<version>]: the versions converted to and from --version (the hub).',
    );
  }
  if (!options.conversion && (options.spokes ?? []).length > 0) {
    throw new UsageError('--spoke goes with --conversion.');
  }
}

/** The kind a webhook is scaffolded for, checked against op-gen.yaml, with the spokes asked for. */
interface WebhookTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly fullGroup: string;
  readonly resource: ProjectResource;
  readonly spokes: readonly string[];
}

/** The resource of op-gen.yaml the flags name; with --conversion, two versions, valid spokes, one hub. */
function webhookTarget(options: CreateWebhookOptions, project: ProjectFile): WebhookTarget {
  const group = options.group ?? '';
  const version = options.version ?? '';
  const kind = options.kind ?? '';
  const fullGroup = apiGroup(project, group);
  const versions = project.resources.filter((r) => r.group === group && r.kind === kind);
  const resource = versions.find((r) => r.version === version);
  if (!resource) {
    const known = project.resources.map((r) => `${r.kind} ${apiGroup(project, r.group)}/${r.version}`);
    throw new OpGenError(
      `unknown kind: ${kind} ${fullGroup}/${version} is not a resource of ${PROJECT_FILE}` +
        `${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}. Add it with \`op-gen create api\` first.`,
    );
  }
  const spokes = [...new Set(options.spokes ?? [])];
  if (options.conversion) {
    if (versions.length < 2) {
      throw new OpGenError(
        `${kind} has one version (${version}); conversion needs two. Add another with \`op-gen create api --group ${group} --version <v> --kind ${kind}\` first.`,
      );
    }
    for (const s of spokes) {
      if (s === version)
        throw new UsageError(`--spoke ${s} is the hub (--version); list the other versions.`);
      if (!versions.some((r) => r.version === s)) {
        throw new OpGenError(
          `--spoke ${s}: ${kind} has no version ${s} (it has ${versions.map((r) => r.version).join(', ')}).`,
        );
      }
    }
    const otherHub = versions.find((r) => r.version !== version && r.webhooks?.conversion);
    if (otherHub) {
      throw new OpGenError(
        `${kind} already converts through ${otherHub.version} (its hub, in ${PROJECT_FILE}); a kind has one hub. Run with --version ${otherHub.version}.`,
      );
    }
  }
  return { group, version, kind, fullGroup, resource, spokes };
}

/** The files of one kind's webhooks, relative to the project. */
interface WebhookFiles {
  readonly kindFile: string;
  readonly apiFile: string;
  readonly webhookFile: string;
  readonly conversionFile: string;
}

function webhookFiles(project: ProjectFile, t: WebhookTarget): WebhookFiles {
  const kindFile = kebabCase(t.kind);
  return {
    kindFile,
    apiFile: `${project.apiDir}/${t.group}/${t.version}/${kindFile}.ts`,
    webhookFile: `src/webhooks/${t.group}/${t.version}/${kindFile}.webhook.ts`,
    conversionFile: `src/webhooks/${t.group}/${t.version}/${kindFile}.conversion.ts`,
  };
}

/** Without --force, a webhook the kind has (in op-gen.yaml or on disk) is an error naming its file. */
function refuseExisting(
  root: string,
  options: CreateWebhookOptions,
  t: WebhookTarget,
  f: WebhookFiles,
): void {
  const had: ProjectWebhooks = t.resource.webhooks ?? {};
  const admission = Boolean(options.defaulting || options.validation);
  const exists: string[] = [];
  if (admission && (had.defaulting || had.validation || existsSync(join(root, f.webhookFile))))
    exists.push(
      `${f.webhookFile} (${[had.defaulting && 'defaulting', had.validation && 'validation'].filter(Boolean).join(', ') || 'exists'})`,
    );
  if (options.conversion && (had.conversion || existsSync(join(root, f.conversionFile))))
    exists.push(`${f.conversionFile} (conversion)`);
  if (exists.length > 0 && !options.force) {
    throw new OpGenError(
      `${t.kind} ${t.fullGroup}/${t.version} already has a webhook: ${exists.join('; ')}. Pass --force to write it again (your changes to the file are replaced).`,
    );
  }
}

/** The values the create-webhook templates read. */
function templateContext(
  root: string,
  project: ProjectFile,
  t: WebhookTarget,
  f: WebhookFiles,
  which: { defaulting: boolean; validation: boolean },
): Record<string, unknown> {
  const { group, version, kind, fullGroup } = t;
  const testDir = `test/unit/webhooks/${group}/${version}`;
  const integrationDir = `test/integration/webhooks/${group}/${version}`;
  return {
    header: projectHeader(root),
    group,
    version,
    kind,
    kindFile: f.kindFile,
    kindLower: kind.toLowerCase(),
    kindCamel: camelCase(kind),
    fullGroup,
    plural: t.resource.plural,
    namespaced: t.resource.namespaced,
    defaulting: which.defaulting,
    validation: which.validation,
    mutatePath: admissionPath('mutate', fullGroup, version, kind),
    validatePath: admissionPath('validate', fullGroup, version, kind),
    apiFile: f.apiFile,
    webhookFile: f.webhookFile,
    conversionFile: f.conversionFile,
    rootFromIntegration: '../'.repeat(integrationDir.split('/').length),
    apiImport: importPath(f.webhookFile, f.apiFile),
    apiImportFromTest: importPath(`${testDir}/x.ts`, f.apiFile),
    webhookImportFromTest: importPath(`${testDir}/x.ts`, f.webhookFile),
    conversionImportFromTest: importPath(`${testDir}/x.ts`, f.conversionFile),
    spokes: t.spokes.map((s) => ({
      version: s,
      Version: s.charAt(0).toUpperCase() + s.slice(1),
      apiFile: `${project.apiDir}/${group}/${s}/${f.kindFile}.ts`,
      apiImport: importPath(f.conversionFile, `${project.apiDir}/${group}/${s}/${f.kindFile}.ts`),
    })),
  };
}

/** src/webhooks/index.ts (created from its template when missing) with each setup imported and listed. */
function webhooksIndex(
  root: string,
  context: Record<string, unknown>,
  setups: readonly { name: string; file: string }[],
): string {
  let index = existsSync(join(root, WEBHOOKS_INDEX))
    ? readText(root, WEBHOOKS_INDEX)
    : (renderTemplateSet('create-webhook/index', context)[0]?.content ?? '');
  for (const s of setups) {
    index = insertAboveMarker(
      index,
      IMPORTS_MARKER,
      `import { ${s.name} } from '${importPath(WEBHOOKS_INDEX, s.file).replace(/^(?!\.)/, './')}';`,
      join(root, WEBHOOKS_INDEX),
    );
    index = insertAboveMarker(index, WEBHOOKS_MARKER, `${s.name},`, join(root, WEBHOOKS_INDEX));
  }
  return index;
}

/** op-gen.yaml with the kind's webhooks recorded and the command added to its scaffold history. */
function recordedProject(
  project: ProjectFile,
  options: CreateWebhookOptions,
  t: WebhookTarget,
  webhooks: ProjectWebhooks,
): ProjectFile {
  return withScaffoldCommand(
    { ...project, resources: project.resources.map((r) => (r === t.resource ? { ...r, webhooks } : r)) },
    [
      ...['create', 'webhook', '--group', t.group, '--version', t.version, '--kind', t.kind],
      ...(options.defaulting ? ['--defaulting'] : []),
      ...(options.validation ? ['--programmatic-validation'] : []),
      ...(options.conversion ? ['--conversion', '--spoke', t.spokes.join(',')] : []),
      ...(options.force ? ['--force'] : []),
    ],
  );
}

/** What `create webhook` would write (a generator plan: absolute paths, sorted), and what it records. */
export interface WebhookScaffoldPlan extends GeneratorPlan {
  readonly target: WebhookTarget;
  /** The kind's webhooks as op-gen.yaml records them after the command. */
  readonly webhooks: ProjectWebhooks;
  /** `defaulting, validation`: what the command adds, for its message. */
  readonly adds: string;
}

/**
 * Plans `op-gen create webhook` (writes nothing): the handlers and tests rendered from the templates,
 * src/webhooks/index.ts, src/main.ts, config/default, package.json and op-gen.yaml edited. Every
 * problem is thrown before anything is written.
 */
export function planWebhookScaffold(options: CreateWebhookOptions): WebhookScaffoldPlan {
  requireFlags(options);
  const root = resolve(options.dir);
  const project = requireProjectFile(root);
  const t = webhookTarget(options, project);
  const f = webhookFiles(project, t);
  refuseExisting(root, options, t, f);
  const had: ProjectWebhooks = t.resource.webhooks ?? {};
  const admission = Boolean(options.defaulting || options.validation);
  // Defaulting and validation share one file: asking for one keeps the other if the kind has it.
  const defaulting = Boolean(options.defaulting || (admission && had.defaulting));
  const validation = Boolean(options.validation || (admission && had.validation));
  const context = templateContext(root, project, t, f, { defaulting, validation });

  const created: RenderedFile[] = [];
  if (admission) created.push(...renderTemplateSet('create-webhook/admission', context));
  if (options.conversion) created.push(...renderTemplateSet('create-webhook/conversion', context));
  if (!existsSync(join(root, 'config', 'default', MANAGER_PATCH)))
    created.push(...renderTemplateSet('create-webhook/config', context));
  const setups = [
    ...(admission ? [{ name: `setup${t.kind}Webhook`, file: f.webhookFile }] : []),
    ...(options.conversion ? [{ name: `setup${t.kind}Conversion`, file: f.conversionFile }] : []),
  ];
  const edited: RenderedFile[] = [
    { path: WEBHOOKS_INDEX, content: webhooksIndex(root, context, setups) },
    { path: MAIN, content: registerInMain(readText(root, MAIN), join(root, MAIN)) },
    {
      path: DEFAULT_KUSTOMIZATION,
      content: enableInDefault(readText(root, DEFAULT_KUSTOMIZATION), join(root, DEFAULT_KUSTOMIZATION)),
    },
  ];
  if (existsSync(join(root, PACKAGE_JSON))) {
    edited.push({
      path: PACKAGE_JSON,
      content: withGenerateWebhook(readText(root, PACKAGE_JSON), join(root, PACKAGE_JSON)),
    });
  }
  const webhooks: ProjectWebhooks = {
    ...(defaulting || had.defaulting ? { defaulting: true } : {}),
    ...(validation || had.validation ? { validation: true } : {}),
    ...(options.conversion || had.conversion ? { conversion: true } : {}),
    ...(options.conversion ? { spokes: t.spokes } : had.spokes ? { spokes: had.spokes } : {}),
  };
  edited.push({
    path: PROJECT_FILE,
    content: renderProjectFile(recordedProject(project, options, t, webhooks)),
  });

  const files: OutputFile[] = [...created, ...edited]
    .map((file) => ({ path: join(root, file.path), content: file.content }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const adds = [
    defaulting && options.defaulting && 'defaulting',
    validation && options.validation && 'validation',
    options.conversion && `conversion (hub ${t.version}, spokes ${t.spokes.join(', ')})`,
  ]
    .filter(Boolean)
    .join(', ');
  return { files, owned: [], target: t, webhooks, adds };
}

/**
 * `op-gen create webhook`: typed handlers under src/webhooks/ with a unit test and an integration
 * test (on a real API server) each, registered in src/main.ts (through src/webhooks/index.ts),
 * recorded in op-gen.yaml, config/default switched to deploy config/webhook and config/certmanager;
 * planned, then written by the generators' `emit` (every file at once, atomically; with `check`,
 * nothing written), then `generate webhook`.
 */
export async function createWebhook(
  options: CreateWebhookOptions,
  io: CreateWebhookIo,
): Promise<CreateWebhookResult> {
  const root = resolve(options.dir);
  const plan = planWebhookScaffold(options);
  const { kind, fullGroup, version, resource } = plan.target;
  const check = options.check === true;
  const result = emit('create webhook', plan, { cwd: root, check });
  const done = { resource: { ...resource, webhooks: plan.webhooks }, files: result.written };
  if (check) {
    io.stdout.write(
      result.written.length === 0
        ? `create webhook: nothing to change for ${kind} ${fullGroup}/${version}\n`
        : `create webhook would write for ${kind} ${fullGroup}/${version}: ${result.written.join(', ')}\n`,
    );
    return { ...done, files: [], generated: [], outOfDate: result.written };
  }
  io.stdout.write(
    `Created ${plan.adds} webhook for ${kind} ${fullGroup}/${version}: ${result.written.join(', ')}\n`,
  );
  const generated = options.skipGenerate ? [] : await runGeneratorsAfter(root, `the ${kind} webhook`, io);
  return { ...done, generated, outOfDate: [] };
}

import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OpGenError } from '../../errors.ts';
import type { OutputFile } from '../../shared/atomic-write.ts';
import { apiGroup, type ProjectFile } from '../../project/project-file.ts';
import type {
  GenerateOptions,
  Generator,
  GeneratorContext,
  GeneratorPlan,
} from '../../generation/contract.ts';
import { generatorContext } from '../../generation/context.ts';
import { filesWithHeader } from '../../generation/emit.ts';
import { runGenerator, type ResultOf } from '../../generation/run.ts';
import {
  configurationNames,
  webhookConfigurations,
  webhookFromMarker,
  type WebhookConfigurationObject,
} from './admission.ts';
import { CONVERSION_PATCH_PREFIX, withConversionPatches } from './crd-kustomization.ts';
import {
  HEADER,
  readDeploySettings,
  renderCertificate,
  renderCertManagerKustomization,
  renderCertManagerKustomizeConfig,
  renderConversionPatch,
  renderCrdKustomizeConfig,
  renderIssuer,
  renderManifests,
  renderService,
  renderWebhookKustomization,
} from './deploy-config.ts';
import { readWebhookMarkers } from './source-markers.ts';
import { markerNames } from '../generator-markers.ts';

export interface GenerateWebhookOptions extends GenerateOptions {
  /** Source folders or files to scan for `@webhook` markers, relative to cwd. Default `src`. */
  readonly paths?: readonly string[];
}

/** A CRD converted through the webhook, from op-gen.yaml. */
export interface ConversionKind {
  readonly crdName: string;
  readonly plural: string;
  readonly hub: string;
  readonly spokes: readonly string[];
}

export interface WebhookPlan extends GeneratorPlan {
  readonly configurations: readonly WebhookConfigurationObject[];
  readonly conversions: readonly ConversionKind[];
}

export type GenerateWebhookResult = ResultOf<WebhookPlan>;

/**
 * `op-gen generate webhook`: config/webhook (manifests, Service, kustomization), config/certmanager,
 * the CRD conversion patches in config/crd, from the `@webhook` markers and op-gen.yaml.
 */
export const webhookGenerator: Generator<GenerateWebhookOptions, WebhookPlan> = {
  name: 'webhook',
  markers: markerNames('webhook'),
  plan: (ctx, options) => planWebhooksIn(ctx, options),
};

/** The kinds op-gen.yaml records with a conversion webhook (on their hub version's entry). */
export function conversionKinds(project: ProjectFile | undefined): ConversionKind[] {
  if (!project) return [];
  const out: ConversionKind[] = [];
  for (const r of project.resources) {
    if (!r.webhooks?.conversion) continue;
    const crdName = `${r.plural}.${apiGroup(project, r.group)}`;
    if (out.some((c) => c.crdName === crdName)) {
      throw new OpGenError(
        `op-gen.yaml: ${r.kind} (${apiGroup(project, r.group)}) has conversion on two versions; one version is the hub. Keep webhooks.conversion on one entry.`,
      );
    }
    out.push({ crdName, plural: r.plural, hub: r.version, spokes: [...(r.webhooks.spokes ?? [])] });
  }
  return out.sort((a, b) => (a.crdName < b.crdName ? -1 : a.crdName > b.crdName ? 1 : 0));
}

/** Files with op-gen's webhook header in `dir` (optionally only names starting with `prefix`). */
function generatedFilesIn(dir: string, prefix = ''): string[] {
  return filesWithHeader(dir, HEADER, { match: new RegExp(`^${prefix}[^/]*\\.ya?ml$`) });
}

/** Reads the markers and op-gen.yaml and computes every output file; writes nothing. */
export function planWebhooks(options: GenerateWebhookOptions): WebhookPlan {
  return planWebhooksIn(generatorContext(options), options);
}

function planWebhooksIn(ctx: GeneratorContext, options: GenerateWebhookOptions): WebhookPlan {
  const { cwd } = ctx;
  const project = ctx.project();
  const markers = readWebhookMarkers(cwd, options.paths ?? ['src']);
  const configurations = webhookConfigurations(
    markers.webhooks.map(webhookFromMarker),
    configurationNames(markers.configurations),
  );
  const conversions = conversionKinds(project);
  const deploy = readDeploySettings(cwd, project);
  const files: OutputFile[] = [];
  const at = (...parts: string[]): string => join(cwd, 'config', ...parts);
  const any = configurations.length > 0 || conversions.length > 0;
  if (any) {
    if (configurations.length > 0)
      files.push({ path: at('webhook', 'manifests.yaml'), content: renderManifests(configurations) });
    files.push(
      { path: at('webhook', 'service.yaml'), content: renderService() },
      {
        path: at('webhook', 'kustomization.yaml'),
        content: renderWebhookKustomization(configurations, deploy),
      },
      { path: at('certmanager', 'issuer.yaml'), content: renderIssuer() },
      { path: at('certmanager', 'certificate.yaml'), content: renderCertificate(deploy) },
      { path: at('certmanager', 'kustomization.yaml'), content: renderCertManagerKustomization() },
      { path: at('certmanager', 'kustomizeconfig.yaml'), content: renderCertManagerKustomizeConfig() },
    );
  }
  const patchPaths = conversions.map((c) => `${CONVERSION_PATCH_PREFIX}${c.plural}.yaml`);
  for (const [i, c] of conversions.entries()) {
    files.push({
      path: at('crd', ...(patchPaths[i] ?? '').split('/')),
      content: renderConversionPatch(c.crdName, deploy),
    });
  }
  if (conversions.length > 0)
    files.push({ path: at('crd', 'kustomizeconfig.yaml'), content: renderCrdKustomizeConfig() });
  const crdKustomization = at('crd', 'kustomization.yaml');
  if (existsSync(crdKustomization)) {
    const text = readFileSync(crdKustomization, 'utf8');
    const edited = withConversionPatches(text, patchPaths, relative(cwd, crdKustomization));
    if (edited !== text) files.push({ path: crdKustomization, content: edited });
  } else if (conversions.length > 0) {
    throw new OpGenError(
      'config/crd/kustomization.yaml is missing: the conversion patches are listed there. Restore it from a freshly scaffolded project.',
    );
  }
  const owned = [
    ...generatedFilesIn(at('webhook')),
    ...generatedFilesIn(at('certmanager')),
    ...generatedFilesIn(at('crd', 'patches'), 'webhook_in_'),
    ...generatedFilesIn(at('crd'), 'kustomizeconfig'),
  ];
  return { configurations, conversions, files, owned };
}

/** Generates the webhook configuration; all files at once, stale generated files removed after. */
export function generateWebhooks(options: GenerateWebhookOptions): Promise<GenerateWebhookResult> {
  return runGenerator(webhookGenerator, options);
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { writeOutput, type OutputFile } from '../../shared/atomic-write.ts';
import { apiGroup, readProjectFile, type ProjectFile } from '../../shared/project-file.ts';
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

export interface GenerateWebhookOptions {
  /** Project root. */
  readonly cwd: string;
  /** Source folders or files to scan for `@webhook` markers, relative to cwd. Default `src`. */
  readonly paths?: readonly string[];
  /** Write nothing; report the files that would change. */
  readonly check?: boolean;
}

/** A CRD converted through the webhook, from op-gen.yaml. */
export interface ConversionKind {
  readonly crdName: string;
  readonly plural: string;
  readonly hub: string;
  readonly spokes: readonly string[];
}

export interface WebhookPlan {
  readonly configurations: readonly WebhookConfigurationObject[];
  readonly conversions: readonly ConversionKind[];
  readonly files: readonly OutputFile[];
  /** Generated files (op-gen's header) the output no longer has. */
  readonly stale: readonly string[];
}

export interface GenerateWebhookResult {
  /** Every file written or checked, relative to cwd. */
  readonly files: readonly string[];
  /** Files whose content changed (with `check`: would change, stale ones included), relative to cwd. */
  readonly changed: readonly string[];
  /** Stale generated files removed, relative to cwd. */
  readonly removed: readonly string[];
  readonly configurations: readonly WebhookConfigurationObject[];
  readonly conversions: readonly ConversionKind[];
}

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
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && /\.ya?ml$/.test(f))
    .map((f) => join(dir, f))
    .filter((p) => readFileSync(p, 'utf8').startsWith(HEADER))
    .sort();
}

/** Reads the markers and op-gen.yaml and computes every output file; writes nothing. */
export function planWebhooks(options: GenerateWebhookOptions): WebhookPlan {
  const { cwd } = options;
  const project = readProjectFile(cwd);
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
  const wanted = new Set(files.map((f) => f.path));
  const stale = [
    ...generatedFilesIn(at('webhook')),
    ...generatedFilesIn(at('certmanager')),
    ...generatedFilesIn(at('crd', 'patches'), 'webhook_in_'),
    ...generatedFilesIn(at('crd'), 'kustomizeconfig'),
  ].filter((p) => !wanted.has(p));
  return { configurations, conversions, files, stale };
}

/**
 * `op-gen generate webhook`: config/webhook (manifests, Service, kustomization), config/certmanager,
 * the CRD conversion patches in config/crd; all files at once, stale generated files removed after.
 */
export function generateWebhooks(options: GenerateWebhookOptions): GenerateWebhookResult {
  const plan = planWebhooks(options);
  const { changed, removed } = writeOutput(plan.files, plan.stale, options.check === true);
  const rel = (p: string): string => relative(options.cwd, p);
  return {
    files: plan.files.map((f) => rel(f.path)),
    changed: changed.map(rel),
    removed: removed.map(rel),
    configurations: plan.configurations,
    conversions: plan.conversions,
  };
}

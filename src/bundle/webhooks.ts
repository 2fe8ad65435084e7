import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OpGenError } from '../errors.ts';
import type { Renderer } from '../kustomize/index.ts';
import { readKustomizedDir, readYamlFile, type Located, type Manifest } from './manifests.ts';

/**
 * The webhooks `op-gen bundle` describes in the CSV's `spec.webhookdefinitions`, as operator-sdk's
 * `generate bundle` derives them (internal/generate/clusterserviceversion: applyWebhooks): one entry
 * per admission webhook of config/webhook, one per conversion Service path from the CRDs' conversion
 * patches. OLM then creates the Service, the certificates and the webhook configurations itself, so
 * the webhook Service and the cert-manager objects are not bundled.
 */

interface ServiceRef {
  name?: string;
  namespace?: string;
  path?: string;
  port?: number;
}
interface AdmissionWebhook {
  name?: string;
  clientConfig?: { service?: ServiceRef; url?: string };
  rules?: unknown[];
  failurePolicy?: string;
  matchPolicy?: string;
  objectSelector?: unknown;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: string;
}
interface ServiceManifest extends Manifest {
  spec?: {
    type?: string;
    selector?: Record<string, string>;
    ports?: { port?: number; targetPort?: number | string }[];
  };
}

/** The conversion a config/crd patch gives a CRD. */
export interface CrdConversion {
  readonly crdName: string;
  readonly service: ServiceRef;
  readonly conversionReviewVersions: readonly string[];
  readonly file: string;
}

export interface WebhookInputs {
  /** Mutating/ValidatingWebhookConfigurations of config/webhook. */
  readonly configurations: readonly Located[];
  /** The Services of config/webhook. */
  readonly services: readonly Located<ServiceManifest>[];
  readonly conversions: readonly CrdConversion[];
}

/** What `kubectl apply -k config/default` deploys of webhooks: config/webhook when listed, and the CRD conversion patches. */
export function readWebhookInputs(
  cwd: string,
  defaultResources: unknown,
  renderer: Renderer = 'op-gen',
): WebhookInputs {
  const listed =
    Array.isArray(defaultResources) &&
    defaultResources.some((r) => typeof r === 'string' && r.replace(/\/$/, '') === '../webhook');
  const objects = listed ? readKustomizedDir(join(cwd, 'config', 'webhook'), cwd, renderer) : [];
  return {
    configurations: objects.filter(
      (o) =>
        o.object.kind === 'MutatingWebhookConfiguration' ||
        o.object.kind === 'ValidatingWebhookConfiguration',
    ),
    services: objects.filter((o) => o.object.kind === 'Service') as Located<ServiceManifest>[],
    conversions: readCrdConversions(cwd),
  };
}

/** The `spec.conversion` of every CRD patch config/crd/kustomization.yaml lists under `patches`. */
function readCrdConversions(cwd: string): CrdConversion[] {
  const dir = join(cwd, 'config', 'crd');
  const kustomization = join(dir, 'kustomization.yaml');
  if (!existsSync(kustomization)) return [];
  const patches = (readYamlFile(kustomization, cwd)[0]?.object as { patches?: unknown } | undefined)?.patches;
  if (!Array.isArray(patches)) return [];
  const out: CrdConversion[] = [];
  for (const p of patches as { path?: unknown }[]) {
    if (typeof p?.path !== 'string') continue;
    const path = join(dir, p.path);
    if (!existsSync(path)) {
      throw new OpGenError(
        `${relative(cwd, kustomization)}: patches lists ${p.path}, which does not exist. Remove it from the list or run \`op-gen generate webhook\`.`,
      );
    }
    for (const doc of readYamlFile(path, cwd)) {
      const crd = doc.object as Manifest & {
        spec?: {
          conversion?: {
            strategy?: string;
            webhook?: { clientConfig?: { service?: ServiceRef }; conversionReviewVersions?: string[] };
          };
        };
      };
      const conversion = crd.spec?.conversion;
      if (crd.kind !== 'CustomResourceDefinition' || conversion?.strategy !== 'Webhook') continue;
      const service = conversion.webhook?.clientConfig?.service;
      if (!service) continue;
      out.push({
        crdName: crd.metadata?.name ?? '',
        service,
        conversionReviewVersions: conversion.webhook?.conversionReviewVersions ?? [],
        file: doc.file,
      });
    }
  }
  return out;
}

export interface WebhookDeployment {
  readonly name: string;
  readonly podLabels: Readonly<Record<string, string>>;
}

export type WebhookDescription = Record<string, unknown> & { generateName: string };

function matchingDeployment(
  service: ServiceManifest | undefined,
  deployments: readonly WebhookDeployment[],
): string | undefined {
  const selector = service?.spec?.selector;
  if (!service || service.spec?.type === 'ExternalName' || !selector || Object.keys(selector).length === 0)
    return undefined;
  return deployments.find((d) => Object.entries(selector).every(([k, v]) => d.podLabels[k] === v))?.name;
}

/** containerPort (the Service port the webhook names, default 443) and the Service's targetPort for it. */
function ports(
  ref: ServiceRef,
  service: ServiceManifest | undefined,
): { containerPort?: number; targetPort?: number | string } {
  const port = ref.port ?? 443;
  const match = service?.spec?.ports?.find((p) => p.port === port);
  return match
    ? { containerPort: port, ...(match.targetPort === undefined ? {} : { targetPort: match.targetPort }) }
    : {};
}

/**
 * `spec.webhookdefinitions`: admission webhooks by name, conversion webhooks grouped by Service path
 * and port (`c<plurals>.kb.io`), sorted by generateName. Names are as config/ has them; the Service a
 * webhook names is matched without config/default's namePrefix, the deployment name gets it.
 */
export function webhookDefinitions(
  inputs: WebhookInputs,
  deployments: readonly WebhookDeployment[],
  namePrefix: string,
): { definitions: WebhookDescription[]; warnings: string[] } {
  const definitions: WebhookDescription[] = [];
  const warnings: string[] = [];
  const serviceNamed = (name: string | undefined): ServiceManifest | undefined =>
    inputs.services.find((s) => s.object.metadata?.name === name)?.object;
  const deploymentFor = (ref: ServiceRef): string => {
    const service = serviceNamed(ref.name);
    return (
      matchingDeployment(service, deployments) ?? `${namePrefix}${(ref.name ?? '').replace(/-service$/, '')}`
    );
  };
  for (const cfg of inputs.configurations) {
    const mutating = cfg.object.kind === 'MutatingWebhookConfiguration';
    for (const w of (cfg.object.webhooks as AdmissionWebhook[] | undefined) ?? []) {
      const ref = w.clientConfig?.service;
      if (!ref) {
        warnings.push(
          `${cfg.file}: webhook ${w.name ?? ''} calls a URL, not the manager's Service; OLM serves only webhooks of the operator's deployment: left out`,
        );
        continue;
      }
      definitions.push({
        generateName: w.name ?? '',
        type: mutating ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook',
        deploymentName: deploymentFor(ref),
        ...ports(ref, serviceNamed(ref.name)),
        ...(w.rules ? { rules: w.rules } : {}),
        ...(w.failurePolicy ? { failurePolicy: w.failurePolicy } : {}),
        ...(w.matchPolicy ? { matchPolicy: w.matchPolicy } : {}),
        ...(w.objectSelector ? { objectSelector: w.objectSelector } : {}),
        sideEffects: w.sideEffects ?? 'None',
        ...(w.timeoutSeconds ? { timeoutSeconds: w.timeoutSeconds } : {}),
        admissionReviewVersions: w.admissionReviewVersions?.length ? w.admissionReviewVersions : ['v1beta1'],
        ...(mutating && w.reinvocationPolicy ? { reinvocationPolicy: w.reinvocationPolicy } : {}),
        ...(ref.path ? { webhookPath: ref.path } : {}),
      });
    }
  }
  const groups = new Map<string, CrdConversion[]>();
  for (const c of inputs.conversions) {
    const key = `${c.service.name ?? ''}\u0000${c.service.port ?? ''}\u0000${c.service.path ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    const crds = group.map((c) => c.crdName).sort();
    definitions.push({
      generateName: `c${crds.map((n) => n.split('.')[0]).join('')}.kb.io`,
      type: 'ConversionWebhook',
      deploymentName: deploymentFor(first.service),
      ...ports(first.service, serviceNamed(first.service.name)),
      sideEffects: 'None',
      admissionReviewVersions: [...first.conversionReviewVersions],
      ...(first.service.path ? { webhookPath: first.service.path } : {}),
      conversionCRDs: crds,
    });
  }
  definitions.sort((a, b) =>
    a.generateName < b.generateName ? -1 : a.generateName > b.generateName ? 1 : 0,
  );
  return { definitions, warnings };
}

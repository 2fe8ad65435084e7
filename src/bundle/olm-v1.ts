/**
 * `bundle validate`'s OLM v1 readiness rules: what operator-controller (OLM v1, the ClusterExtension
 * API) refuses or ignores in a registry+v1 bundle that OLM (classic) accepted. Warnings by default;
 * errors with `--olm-v1`. Each finding says what to do. The facts, from operator-controller's
 * documentation and its registry+v1 validators: an extension must support the AllNamespaces install
 * mode (OwnNamespace/SingleNamespace only behind the experimental `watchNamespace` configuration); it
 * must not declare dependencies (`olm.gvk.required`, `olm.package.required`, `olm.constraint`); OLM v1
 * has no OperatorConditions API; bundles with webhooks must support AllNamespaces alone; and OLM v1
 * derives the operator's ServiceAccount and RBAC from the CSV only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readYamlFile, type Located, type Manifest } from './manifests.ts';

export interface OlmV1Input {
  /** The bundle directory (manifests/ and metadata/). */
  readonly dir: string;
  /** The CSV's file, relative to `dir`. */
  readonly csvFile: string;
  readonly csv: Manifest;
  readonly objects: readonly Located<Manifest>[];
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
}

interface Permission {
  serviceAccountName?: string;
  rules?: PolicyRule[];
}

interface OlmV1Spec {
  installModes?: { type?: string; supported?: boolean }[];
  customresourcedefinitions?: { required?: { name?: string; version?: string; kind?: string }[] };
  apiservicedefinitions?: { required?: { group?: string; version?: string; kind?: string }[] };
  webhookdefinitions?: { generateName?: string; type?: string }[];
  install?: {
    spec?: {
      permissions?: Permission[];
      clusterPermissions?: Permission[];
      deployments?: {
        name?: string;
        spec?: {
          template?: {
            spec?: {
              serviceAccountName?: string;
              containers?: { name?: string; env?: { name?: string }[] }[];
            };
          };
        };
      }[];
    };
  };
}

/** The dependency property types OLM v1 refuses, in a catalog, properties.yaml or the CSV. */
const DEPENDENCY_PROPERTIES = new Set(['olm.gvk.required', 'olm.package.required', 'olm.constraint']);
/** metadata/dependencies.yaml's types (opm turns them into the properties above). */
const DEPENDENCY_TYPES = new Set(['olm.gvk', 'olm.package', 'olm.constraint', 'olm.label']);

const REMOVE_DEPENDENCY =
  'OLM v1 resolves no dependencies and refuses a bundle that declares one: remove it, document the prerequisite, and install it as its own ClusterExtension first';

type Report = (rule: string, message: string) => void;

interface OlmV1Rule {
  check(input: OlmV1Input, spec: OlmV1Spec, report: (message: string) => void): void;
}

/** A YAML file of metadata/, or undefined when it is absent. */
function metadataFile(dir: string, name: string): Located | undefined {
  const path = join(dir, 'metadata', name);
  return existsSync(path) ? readYamlFile(path, dir)[0] : undefined;
}

function typedList(value: unknown): { type?: unknown; value?: unknown }[] {
  return Array.isArray(value)
    ? value.filter((e): e is { type?: unknown; value?: unknown } => !!e && typeof e === 'object')
    : [];
}

const RULES: Readonly<Record<string, OlmV1Rule>> = {
  'olmv1-all-namespaces': {
    check(b, spec, report) {
      const modes = spec.installModes ?? [];
      if (modes.some((m) => m.type === 'AllNamespaces' && m.supported === true)) return;
      report(
        `${b.csvFile}: spec.installModes does not support AllNamespaces. OLM v1 installs an operator for the whole cluster ` +
          '(OwnNamespace and SingleNamespace only behind its experimental watchNamespace configuration): ' +
          'watch every namespace and set AllNamespaces supported: true in config/manifests/bases/<package>.clusterserviceversion.yaml',
      );
    },
  },
  'olmv1-dependencies': {
    check(b, spec, report) {
      const deps = metadataFile(b.dir, 'dependencies.yaml');
      if (deps) {
        for (const d of typedList((deps.object as { dependencies?: unknown }).dependencies)) {
          if (typeof d.type === 'string' && DEPENDENCY_TYPES.has(d.type))
            report(
              `${deps.file}: dependency of type ${d.type} (${JSON.stringify(d.value)}). ${REMOVE_DEPENDENCY}`,
            );
        }
      }
      const props = metadataFile(b.dir, 'properties.yaml');
      if (props) {
        for (const p of typedList((props.object as { properties?: unknown }).properties)) {
          if (typeof p.type === 'string' && DEPENDENCY_PROPERTIES.has(p.type))
            report(`${props.file}: property ${p.type} (${JSON.stringify(p.value)}). ${REMOVE_DEPENDENCY}`);
        }
      }
      const annotation = b.csv.metadata?.annotations?.['operatorframework.io/properties'];
      if (annotation !== undefined) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(annotation);
        } catch {
          parsed = undefined;
        }
        for (const p of typedList((parsed as { properties?: unknown } | undefined)?.properties)) {
          if (typeof p.type === 'string' && DEPENDENCY_PROPERTIES.has(p.type))
            report(
              `${b.csvFile}: the operatorframework.io/properties annotation declares ${p.type} (${JSON.stringify(p.value)}). ${REMOVE_DEPENDENCY}`,
            );
        }
      }
      for (const r of spec.customresourcedefinitions?.required ?? [])
        report(
          `${b.csvFile}: spec.customresourcedefinitions.required lists ${r.name ?? r.kind ?? '(unnamed)'} ${r.version ?? ''}`.trimEnd() +
            `, which a catalog turns into an olm.gvk.required dependency. ${REMOVE_DEPENDENCY}`,
        );
      for (const r of spec.apiservicedefinitions?.required ?? [])
        report(
          `${b.csvFile}: spec.apiservicedefinitions.required lists ${r.kind ?? '(unnamed)'}.${r.group ?? ''}/${r.version ?? ''}, ` +
            `which a catalog turns into an olm.gvk.required dependency. ${REMOVE_DEPENDENCY}`,
        );
    },
  },
  'olmv1-service-account': {
    check(b, spec, report) {
      const install = spec.install?.spec ?? {};
      const permissions = [...(install.permissions ?? []), ...(install.clusterPermissions ?? [])];
      if (permissions.length === 0) return;
      const granted = new Set(
        permissions.flatMap((p) => (p.serviceAccountName ? [p.serviceAccountName] : [])),
      );
      const runAs = new Map<string, string>();
      for (const d of install.deployments ?? [])
        runAs.set(d.name ?? '(unnamed)', d.spec?.template?.spec?.serviceAccountName ?? '');
      for (const [deployment, sa] of runAs) {
        if (!sa || sa === 'default')
          report(
            `${b.csvFile}: deployment ${deployment} runs as the namespace's default ServiceAccount, which gets none of the CSV's permissions ` +
              "(OLM v1 grants them only to the accounts they name; a ClusterExtension's spec.serviceAccount gives the operator nothing): " +
              `set its serviceAccountName to ${[...granted][0] ?? 'the account the permissions name'}`,
          );
      }
      const used = new Set(runAs.values());
      for (const sa of granted)
        if (!used.has(sa))
          report(
            `${b.csvFile}: the CSV's permissions are granted to ServiceAccount ${sa}, which no deployment runs as: ` +
              'OLM v1 creates it with the RBAC and nothing uses it. Name the account the manager runs as',
          );
      for (const o of b.objects)
        if (o.object.kind === 'ServiceAccount' && granted.has(o.object.metadata?.name ?? ''))
          report(
            `${o.file}: ServiceAccount ${o.object.metadata?.name ?? ''} is also the one OLM v1 creates from the CSV's permissions; ` +
              'the two conflict at install: remove it from the bundle',
          );
    },
  },
  'olmv1-operator-conditions': {
    check(b, spec, report) {
      const install = spec.install?.spec ?? {};
      for (const p of [...(install.permissions ?? []), ...(install.clusterPermissions ?? [])])
        for (const r of p.rules ?? [])
          if (
            (r.apiGroups ?? []).some((g) => g === 'operators.coreos.com') &&
            (r.resources ?? []).some((res) => res === 'operatorconditions' || res === '*')
          )
            report(
              `${b.csvFile}: ServiceAccount ${p.serviceAccountName ?? ''} is granted operatorconditions (operators.coreos.com): ` +
                'OLM v1 does not support the OperatorConditions API (an operator that uses it fails at start or while reconciling): ' +
                "remove the use and the rule; to hold upgrades, pin the ClusterExtension's version",
            );
      for (const d of install.deployments ?? [])
        for (const c of d.spec?.template?.spec?.containers ?? [])
          if ((c.env ?? []).some((e) => e.name === 'OPERATOR_CONDITION_NAME'))
            report(
              `${b.csvFile}: deployment ${d.name ?? ''} container ${c.name ?? ''} reads OPERATOR_CONDITION_NAME: ` +
                'OLM v1 does not support the OperatorConditions API; remove the use',
            );
    },
  },
  'olmv1-webhooks-all-namespaces': {
    check(b, spec, report) {
      const webhooks = spec.webhookdefinitions ?? [];
      if (webhooks.length === 0) return;
      const others = (spec.installModes ?? []).filter(
        (m) => m.supported === true && m.type !== 'AllNamespaces',
      );
      if (others.length === 0) return;
      report(
        `${b.csvFile}: ${webhooks.length} webhook definition(s) and install modes besides AllNamespaces ` +
          `(${others.map((m) => m.type ?? '').join(', ')}): OLM v1 installs a bundle with webhooks only as a cluster-wide singleton; ` +
          'set every install mode but AllNamespaces to supported: false',
      );
    },
  },
};

/** The id of every OLM v1 readiness rule. */
export const OLM_V1_RULE_IDS: readonly string[] = Object.keys(RULES);

/** Runs every OLM v1 readiness rule; `report` gets the rule id and the message (file first). */
export function checkOlmV1(input: OlmV1Input, report: Report): void {
  const spec = (input.csv.spec ?? {}) as OlmV1Spec;
  for (const [rule, { check }] of Object.entries(RULES))
    check(input, spec, (message) => report(rule, message));
}

/**
 * The shape checks of the manager Deployment `op-gen bundle` builds the CSV's install strategy from:
 * each field the bundle reads has the type apps/v1 gives it, so a hand-edited or broken
 * config/manager/manager.yaml (a misspelt `template:`, a container list that is a mapping) is a list
 * of messages naming each field, never a crash while the CSV is built.
 */

import { describeValue, isMapping } from '../shared/value-shape.ts';

const isStringMap = (v: unknown): boolean =>
  isMapping(v) && Object.values(v).every((x) => typeof x === 'string');

/** Every shape problem of `deployment`, each `path: what is wrong`; empty when the bundle can read it. */
export function deploymentShapeProblems(deployment: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const mapping = (value: unknown, path: string): Record<string, unknown> | undefined => {
    if (isMapping(value)) return value;
    problems.push(`${path}: must be a mapping, found ${describeValue(value)}`);
    return undefined;
  };
  const optional = (value: unknown, path: string, ok: (v: unknown) => boolean, want: string): void => {
    if (value !== undefined && value !== null && !ok(value))
      problems.push(`${path}: must be ${want}, found ${describeValue(value)}`);
  };
  const metadata = deployment.metadata;
  if (metadata !== undefined && metadata !== null) {
    const m = mapping(metadata, 'metadata');
    optional(m?.name, 'metadata.name', (v) => typeof v === 'string', 'a string');
    optional(m?.labels, 'metadata.labels', isStringMap, 'a mapping of strings');
  }
  const spec = mapping(deployment.spec, 'spec');
  const template = spec && mapping(spec.template, 'spec.template');
  if (template && template.metadata !== undefined && template.metadata !== null) {
    const m = mapping(template.metadata, 'spec.template.metadata');
    optional(m?.labels, 'spec.template.metadata.labels', isStringMap, 'a mapping of strings');
  }
  const pod = template && mapping(template.spec, 'spec.template.spec');
  if (!pod) return problems;
  optional(
    pod.serviceAccountName,
    'spec.template.spec.serviceAccountName',
    (v) => typeof v === 'string',
    'a string',
  );
  const containers = pod.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    problems.push(
      `spec.template.spec.containers: must be a list of containers, found ${describeValue(containers)}`,
    );
    return problems;
  }
  containers.forEach((c: unknown, i) => {
    const path = `spec.template.spec.containers[${i}]`;
    const container = mapping(c, path);
    if (!container) return;
    if (typeof container.name !== 'string')
      problems.push(`${path}.name: must be a string, found ${describeValue(container.name)}`);
    optional(container.image, `${path}.image`, (v) => typeof v === 'string', 'a string');
  });
  return problems;
}

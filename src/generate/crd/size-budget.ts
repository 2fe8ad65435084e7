import type { JSONSchemaProps } from '../../api-types/json-schema.ts';

/** The parts of a CRD the budget reads (assemble.ts's CustomResourceDefinition has them). */
export interface CrdLike {
  readonly metadata: { readonly name: string };
  readonly spec: { readonly versions: readonly { readonly schema: { openAPIV3Schema: JSONSchemaProps } }[] };
}

/**
 * The size budget of a CRD. Two limits matter when it is applied:
 * - client-side `kubectl apply` stores the whole object as JSON in the
 *   `kubectl.kubernetes.io/last-applied-configuration` annotation, and an object's annotations may
 *   hold at most 256 KiB (apimachinery's TotalAnnotationSizeLimitB): past it, only server-side apply
 *   (or create/replace) works;
 * - every object is one etcd request, and etcd refuses requests over its `--max-request-bytes`
 *   (1.5 MiB by default): past it, the API server cannot store the CRD at all.
 * Sizes are measured as the CRD's compact JSON, the form both limits see.
 */
export const ANNOTATION_LIMIT_BYTES = 256 * 1024;
export const REQUEST_LIMIT_BYTES = 1.5 * 1024 * 1024;

/** `--max-description-length`: a number of characters (0 drops descriptions), or `auto`. */
export type DescriptionLimit = number | 'auto';

/** The size of one CRD as written, and what the automatic mode trimmed to get there. */
export interface CrdSize {
  /** metadata.name of the CRD. */
  readonly name: string;
  /** Bytes of the CRD as compact JSON. */
  readonly bytes: number;
  /** With `auto`: what was trimmed, e.g. `Kubernetes types' descriptions cut to 200 characters`. */
  readonly trimmed?: string;
}

export function crdBytes(crd: CrdLike): number {
  return Buffer.byteLength(JSON.stringify(crd), 'utf8');
}

/** `12.3 KiB`, `1.52 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** controller-gen's maxDescLen cut: at a word boundary, `...` added; 0 drops the description. */
export function cutDescription(description: string, maxLen: number): string | undefined {
  if (maxLen === 0) return undefined;
  if (description.length <= maxLen) return description;
  let cut = description.slice(0, maxLen);
  const space = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('\n'), cut.lastIndexOf('\t'));
  if (space > 0) cut = cut.slice(0, space);
  return `${cut}...`;
}

/**
 * A copy of `node` with descriptions cut to `maxLen`, on the nodes `applies` selects (all by
 * default). Shared sub-schemas stay shared in the copy, so `applies` can test identity below.
 */
export function trimDescriptions(
  node: JSONSchemaProps,
  maxLen: number,
  applies: (node: JSONSchemaProps) => boolean = () => true,
): JSONSchemaProps {
  const out: JSONSchemaProps = { ...node };
  if (out.description !== undefined && applies(node)) {
    const cut = cutDescription(out.description, maxLen);
    if (cut === undefined) delete out.description;
    else out.description = cut;
  }
  if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, trimDescriptions(v, maxLen, applies)]),
    );
  }
  if (out.items) out.items = trimDescriptions(out.items, maxLen, applies);
  if (out.additionalProperties && typeof out.additionalProperties === 'object') {
    out.additionalProperties = trimDescriptions(out.additionalProperties, maxLen, applies);
  }
  return out;
}

function withSchemas<C extends CrdLike>(crd: C, map: (schema: JSONSchemaProps) => JSONSchemaProps): C {
  return {
    ...crd,
    spec: {
      ...crd.spec,
      versions: crd.spec.versions.map((v) => ({
        ...v,
        schema: { openAPIV3Schema: map(v.schema.openAPIV3Schema) },
      })),
    },
  };
}

/** The lengths the automatic mode tries, longest first. */
const AUTO_STEPS = [400, 200, 100, 50, 0] as const;

/**
 * `--max-description-length auto`: the CRD unchanged when it fits `target`; else the descriptions of
 * embedded Kubernetes types (the nodes in `embedded`) cut shorter and shorter, then every other
 * description too, until it fits. When nothing fits, every description is dropped.
 */
export function fitDescriptions<C extends CrdLike>(
  crd: C,
  embedded: { has(node: JSONSchemaProps): boolean },
  target: number = ANNOTATION_LIMIT_BYTES,
): { crd: C; size: CrdSize } {
  const name = crd.metadata.name;
  const bytes = crdBytes(crd);
  if (bytes <= target) return { crd, size: { name, bytes } };
  let last = { crd, size: { name, bytes } as CrdSize };
  const isEmbedded = (node: JSONSchemaProps): boolean => embedded.has(node);
  for (const step of AUTO_STEPS) {
    const trimmed = withSchemas(crd, (s) => trimDescriptions(s, step, isEmbedded));
    const size = crdBytes(trimmed);
    const what = step === 0 ? 'dropped' : `cut to ${step} characters`;
    last = { crd: trimmed, size: { name, bytes: size, trimmed: `Kubernetes types' descriptions ${what}` } };
    if (size <= target) return last;
  }
  const noEmbedded = withSchemas(crd, (s) => trimDescriptions(s, 0, isEmbedded));
  for (const step of AUTO_STEPS) {
    const cut = withSchemas(noEmbedded, (s) => trimDescriptions(s, step));
    const size = crdBytes(cut);
    const what =
      step === 0
        ? 'all descriptions dropped'
        : `Kubernetes types' descriptions dropped, the others cut to ${step} characters`;
    last = { crd: cut, size: { name, bytes: size, trimmed: what } };
    if (size <= target) return last;
  }
  return last;
}

/** What to tell the user about one CRD's size: a warning past the annotation limit, a problem past the request limit. */
export function sizeVerdict(size: CrdSize): { warning?: string; problem?: string } {
  const shown = formatBytes(size.bytes);
  if (size.bytes > REQUEST_LIMIT_BYTES) {
    return {
      problem: `CRD ${size.name} is ${shown} as JSON, over the ${formatBytes(REQUEST_LIMIT_BYTES)} the API server can store (etcd's default request limit)${size.trimmed ? ` even with ${size.trimmed}` : ''}. Run with --max-description-length auto (or a number of characters), or embed fewer or smaller types`,
    };
  }
  if (size.bytes > ANNOTATION_LIMIT_BYTES) {
    return {
      warning: `CRD ${size.name} is ${shown} as JSON${size.trimmed ? ` (with ${size.trimmed})` : ''}, over the 256 KiB of the last-applied-configuration annotation: client-side \`kubectl apply\` will fail on it. Apply it with \`kubectl apply --server-side\` (or create/replace)${size.trimmed ? '' : ', or run with --max-description-length auto'}`,
    };
  }
  return {};
}

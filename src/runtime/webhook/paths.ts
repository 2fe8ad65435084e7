/** A group, version and kind: what a webhook path is computed from. */
export interface GroupVersionKind {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export type AdmissionWebhookType = 'mutate' | 'validate';

/**
 * The path controller-runtime (and `op-gen generate webhook`) give an admission webhook:
 * `/mutate-<group with '.' → '-'>-<version>-<kind lowercased>` (`/validate-...` for validation);
 * the core group gives `/mutate--v1-pod`, as controller-runtime's generateMutatePath does.
 */
export function webhookPath(type: AdmissionWebhookType, gvk: GroupVersionKind): string {
  return `/${type}-${gvk.group.replaceAll('.', '-')}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}

/** The one path every conversion webhook is served on, as in controller-runtime. */
export const CONVERSION_PATH = '/convert';

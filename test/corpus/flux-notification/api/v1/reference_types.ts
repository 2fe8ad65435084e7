/** A reference to a Flux object, possibly in another namespace. */
export interface CrossNamespaceObjectReference {
  apiVersion?: string;
  /** @enum Bucket;GitRepository;Kustomization;HelmRelease;HelmChart;HelmRepository;ImageRepository;ImagePolicy;ImageUpdateAutomation;OCIRepository;ArtifactGenerator;ExternalArtifact */
  kind: string;
  /**
   * `*` selects every object of the kind (with matchLabels).
   * @minLength 1
   * @maxLength 253
   */
  name: string;
  /**
   * @minLength 1
   * @maxLength 253
   */
  namespace?: string;
  matchLabels?: Record<string, string>;
}

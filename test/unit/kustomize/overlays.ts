/** The fixture overlays under test/fixtures/kustomize/app, one kustomize feature (or a few) each. */
export const OVERLAYS = [
  'overlay-configurations',
  'overlay-images',
  'overlay-json6902',
  'overlay-labels',
  'overlay-legacy-patches',
  'overlay-names',
  'overlay-replicas',
  'overlay-smp',
  'overlay-smp-order',
];

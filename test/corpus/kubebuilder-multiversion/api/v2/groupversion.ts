export const groupVersion = { group: 'batch.tutorial.kubebuilder.io', version: 'v2' } as const;

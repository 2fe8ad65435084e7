export const groupVersion = { group: 'batch.tutorial.kubebuilder.io', version: 'v1' } as const;

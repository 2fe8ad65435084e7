export const groupVersion = { group: 'kueue.x-k8s.io', version: 'v1beta2' } as const;

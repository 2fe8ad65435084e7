export const groupVersion = { group: 'cache.example.com', version: 'v1alpha1' } as const;

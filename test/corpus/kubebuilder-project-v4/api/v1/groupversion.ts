export const groupVersion = { group: 'crew.testproject.org', version: 'v1' } as const;

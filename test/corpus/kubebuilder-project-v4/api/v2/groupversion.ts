export const groupVersion = { group: 'crew.testproject.org', version: 'v2' } as const;

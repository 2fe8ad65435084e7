export { pluralize } from './pluralize.ts';
export { imageReferenceErrors } from './image-reference.ts';
export { isRfc3339 } from './rfc3339.ts';
export {
  dns1035LabelErrors,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  labelKeyErrors,
  labelValueErrors,
} from './dns.ts';

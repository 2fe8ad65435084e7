/**
 * Container image references as github.com/distribution/reference (the grammar docker, containerd
 * and the kubelet parse): `[domain[:port]/]path[:tag][@digest]`.
 */
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_NAME}|${IPV6})(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

const NAME_MAX_LENGTH = 255;

/** Problems with an image reference (`quay.io/acme/op:v0.1.0`), empty when it is valid. */
export function imageReferenceErrors(value: string): string[] {
  if (value === '') return ['must be non-empty'];
  const m = REFERENCE.exec(value);
  if (!m) {
    return [
      'must be an image reference [registry[:port]/]name[:tag][@digest] with a lower-case name ' +
        '(e.g. quay.io/example/memcached-operator:v0.1.0)',
    ];
  }
  if (m[1]!.length > NAME_MAX_LENGTH)
    return [`the repository name must be no more than ${NAME_MAX_LENGTH} characters`];
  return [];
}

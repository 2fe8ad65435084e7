import { MarkerRegistry } from '../markers/registry.ts';
import type { MarkerSpec, ParsedMarker } from '../markers/types.ts';

/**
 * The bundle generator's markers: what operator-sdk's `+operator-sdk:csv:customresourcedefinitions:...`
 * markers say, as JSDoc tags on the API types, read by `op-gen bundle` into the CSV's owned CRDs.
 * The table is here rather than in bundle/ so that the Go-form index (go-forms.ts), which holds every
 * registry, does not make generate/ import bundle/ (bundle/ reads the API model from generate/).
 */
export type CsvMarker = ParsedMarker<never>;

export const csvMarkerSpecs: readonly MarkerSpec<never>[] = [
  {
    name: 'csv:displayName',
    targets: ['type'],
    value: { type: 'string', required: true, help: 'the display name' },
    controllerGen: '+operator-sdk:csv:customresourcedefinitions:displayName',
    help: 'On a kind: the display name of its owned CRD in the CSV (default: the kind).',
  },
  {
    name: 'csv:resource',
    targets: ['type'],
    repeatable: true,
    controllerGen: '+operator-sdk:csv:customresourcedefinitions:resources',
    help: 'On a kind: a resource its controller creates, listed in the owned CRD (`resources`).',
    args: {
      kind: { type: 'string', required: true, help: 'e.g. Deployment' },
      version: { type: 'string', required: true, help: 'e.g. v1' },
      name: { type: 'string', help: 'the object name, if fixed' },
    },
  },
  {
    name: 'csv:descriptor',
    targets: ['field'],
    repeatable: false,
    controllerGen: '+operator-sdk:csv:customresourcedefinitions:type=spec|status',
    help:
      'On a field under spec or status: a spec or status descriptor of the owned CRD, with its path, ' +
      'the field description and optional display name and UI x-descriptors.',
    args: {
      displayName: { type: 'string', help: 'shown in the console (default: the field name)' },
      xDescriptors: { type: 'string[]', help: '`;`-separated urn:alm:descriptor:... values' },
    },
  },
];

export const csvMarkers = new MarkerRegistry<never>(csvMarkerSpecs);

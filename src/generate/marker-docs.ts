import { renderMarkerTable } from '../markers/docs.ts';
import { GENERATOR_MARKERS } from './generator-markers.ts';

/**
 * docs/markers.md, generated from the marker tables the CRD and webhook generators declare
 * (generator-markers.ts; test/unit/markers/docs.test.ts keeps it fresh).
 */
export function renderCrdMarkersDoc(): string {
  const crdMarkerSpecs = GENERATOR_MARKERS.crd.specs;
  const webhookMarkerSpecs = GENERATOR_MARKERS.webhook.specs;
  const byEffect = (on: string) => crdMarkerSpecs.filter((s) => s.unsupported || s.effect?.on === on);
  const fieldSpecs = crdMarkerSpecs.filter(
    (s) => !s.unsupported && (s.effect?.on === 'schema' || s.effect?.on === 'field'),
  );
  const kindSpecs = byEffect('kind').filter((s) => !s.unsupported);
  const packageSpecs = byEffect('package').filter((s) => !s.unsupported);
  const leftOut = crdMarkerSpecs.filter((s) => s.unsupported);
  return [
    '<!-- Generated from src/generate/crd/markers.ts by `UPDATE_GOLDEN=1 node --test test/unit/markers/docs.test.ts`. Do not edit. -->',
    '# Marker reference (`op-gen generate crd`)',
    '',
    "Markers are JSDoc tags on API types and fields, named like controller-gen's markers without the",
    '`+kubebuilder:validation:` prefix. Tag names are matched case-insensitively; argument syntax:',
    '',
    '- a single value follows the tag: `@minimum 1`, `@pattern ^[a-z]+$` (the rest of the line), `@default {"a":1}` (JSON);',
    '- lists are `;`-separated: `@enum a;b;c`, `@shortName mc;mcs`;',
    '- named arguments are `key=value`, quoted when they hold spaces: `@validation rule="self > 0" message="must be positive"`;',
    '  a tag may continue on the following comment lines;',
    '- `@items:<marker>` applies a marker to the elements of an array field (where the table says so).',
    '',
    'Unknown tags are left alone (other tools read them), except tags that look like a misspelt marker,',
    'which are errors. Every error names the file and line of the tag.',
    '',
    'A marker that makes a CRD the API server refuses, or a field no object can set, is an error at its',
    "line, all of them in one run (nothing is written): a `@pattern` Go's RE2 (the API server's dialect)",
    'cannot compile (lookarounds, backreferences, repeats over 1000); a minimum above its maximum (for',
    'values, lengths, items and properties); a negative length or count; `@multipleOf` 0 or less; an',
    '`@enum` value the other constraints refuse; a `@default` its own field refuses (type, bounds, pattern,',
    'enum, format, items, nested objects and their required fields). An unknown `@format` is a warning',
    'naming the nearest known format (the API server ignores unknown formats). A doc comment holding',
    'markers that TypeScript attaches to no declaration (one that follows code on its line, such as',
    '`size?: int32; /** @maximum 3 */ other?: int32;`) is an error naming its line.',
    '',
    "controller-gen's own (Go) form is an error that names the op-gen form to write: a comment line",
    '`+kubebuilder:validation:Minimum=0` or `+optional`, or a tag `@kubebuilder:validation:Minimum 0`, says',
    '`Write @minimum 0` (`+kubebuilder:rbac:...` says the `@rbac` to write; a misspelt name, the closest',
    "marker). The mapping comes from the markers' controller-gen names in the tables below.",
    '',
    'See [generate-crd.md](generate-crd.md) for the API conventions and how TypeScript types map to schemas.',
    '',
    '## Field and type markers',
    '',
    renderMarkerTable(fieldSpecs),
    '## Kind markers (on the interface marked `@kind`)',
    '',
    renderMarkerTable(kindSpecs),
    '## Package markers (on the doc comment of `groupVersion` in groupversion.ts)',
    '',
    renderMarkerTable(packageSpecs),
    '## controller-gen markers left out',
    '',
    renderMarkerTable(leftOut).replace(/^[\s\S]*### Left out\n\n/, ''),
    '## Webhook markers (`op-gen generate webhook`, registry: src/generate/webhook/markers.ts)',
    '',
    'On a webhook handler class or in any doc comment of a source file under `src/` (`op-gen create webhook`',
    "writes them); controller-gen's arguments, separated by spaces instead of commas, a JSON `patch` without",
    'backticks. See [generate-webhook.md](generate-webhook.md).',
    '',
    '```ts',
    '/**',
    ' * @webhook path=/validate-cache-example-com-v1-memcached mutating=false failurePolicy=fail sideEffects=None',
    ' *   groups=cache.example.com resources=memcacheds verbs=create;update versions=v1',
    ' *   name=vmemcached-v1.kb.io admissionReviewVersions=v1',
    ' */',
    'export class MemcachedCustomValidator implements Validator<Memcached> { ... }',
    '```',
    '',
    renderMarkerTable(webhookMarkerSpecs),
  ].join('\n');
}

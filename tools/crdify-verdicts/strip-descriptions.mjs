// Reads one CRD (YAML) on stdin, writes it without its schema descriptions (JSON, which is YAML).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const { parse } = createRequire(import.meta.url)('yaml');
const strip = (v) => {
  if (Array.isArray(v)) return v.map(strip);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'description')
      .map(([k, x]) => [k, strip(x)]),
  );
};
const crd = parse(readFileSync(0, 'utf8'));
for (const version of crd.spec.versions) version.schema = strip(version.schema);
process.stdout.write(`${JSON.stringify(crd)}\n`);

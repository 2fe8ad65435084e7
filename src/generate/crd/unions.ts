import type { JSONSchemaProps, ValidationRule } from '../../api-types/json-schema.ts';
import type { SourceLocation } from '../../markers/index.ts';
import { celPropertyName, celString } from './cel-names.ts';
import { sourceError } from './walk-error.ts';

/**
 * Unions as one structural schema. A TypeScript union of object types (told apart by a
 * string-literal discriminator, or by fields of their own) and an object whose fields are marked
 * `@unionMember` (with an optional `@unionDiscriminator`) become one object with the members'
 * properties merged, plus `x-kubernetes-validations` rules that allow exactly the members the
 * discriminator names (or exactly one member when there is no discriminator), as the Kubernetes API
 * conventions describe unions.
 */

interface Where {
  readonly path: string;
  readonly location: SourceLocation;
}

/** One member of a TypeScript union, with its schema as an object type. */
export interface UnionMemberSchema {
  readonly schema: JSONSchemaProps;
  /** The member as TypeScript prints it, for errors. */
  readonly label: string;
}

/** One variant of a union: the fields it may set and the discriminator values that select it. */
interface Variant {
  /** Discriminator values selecting this variant (none without a discriminator). */
  readonly values: readonly string[];
  /** Fields this variant may set (the discriminator excluded). */
  readonly fields: ReadonlySet<string>;
  /** Fields this variant must set. */
  readonly required: ReadonlySet<string>;
}

interface UnionModel {
  readonly discriminator?: { readonly name: string; readonly required: boolean };
  readonly variants: readonly Variant[];
  /** Fields required whatever the variant (already in the schema's `required`). */
  readonly requiredAll: ReadonlySet<string>;
}

const has = (field: string): string => `has(self.${celPropertyName(field)})`;

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
}

/** A schema with descriptions removed, as a canonical string (to compare members' field types). */
function shape(schema: JSONSchemaProps): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        if (key !== 'description') out[key] = strip((value as Record<string, unknown>)[key]);
      }
      return out;
    }
    return value;
  };
  return JSON.stringify(strip(schema));
}

function describeType(schema: JSONSchemaProps): string {
  if (schema.enum) return `enum ${schema.enum.map((v) => JSON.stringify(v)).join(' | ')}`;
  if (schema['x-kubernetes-int-or-string']) return 'int-or-string';
  if (schema.type === 'array') return `array of ${schema.items ? describeType(schema.items) : 'anything'}`;
  if (schema.type === 'object' && schema.properties)
    return `object {${Object.keys(schema.properties).join(', ')}}`;
  return schema.type ?? 'untyped';
}

/** The CEL condition "the discriminator selects one of `values`". */
function selects(model: UnionModel, values: readonly string[]): string {
  const d = model.discriminator;
  if (!d) return '';
  const field = `self.${celPropertyName(d.name)}`;
  const test =
    values.length === 1
      ? `${field} == ${celString(values[0] ?? '')}`
      : `${field} in [${values.map(celString).join(', ')}]`;
  return d.required ? test : `${has(d.name)} && ${test}`;
}

/** The rules enforcing a union model on its merged object. */
function unionRules(model: UnionModel): ValidationRule[] {
  const all = new Set(model.variants.flatMap((v) => [...v.fields]));
  const rules: ValidationRule[] = [];
  const d = model.discriminator;
  if (d) {
    for (const v of model.variants) {
      const mustSet = [...v.required].filter((f) => !model.requiredAll.has(f));
      const mustNotSet = [...all].filter((f) => !v.fields.has(f));
      if (mustSet.length === 0 && mustNotSet.length === 0) continue;
      const body = [...mustSet.map(has), ...mustNotSet.map((f) => `!${has(f)}`)].join(' && ');
      const parts = [
        ...(mustSet.length > 0 ? [`${listed(mustSet)} must be set`] : []),
        ...(mustNotSet.length > 0 ? [`${listed(mustNotSet)} must not be set`] : []),
      ];
      const is =
        v.values.length === 1
          ? `is ${celString(v.values[0] ?? '')}`
          : `is one of ${v.values.map(celString).join(', ')}`;
      rules.push({
        rule: `${selects(model, v.values)} ? ${body} : true`,
        message: `when ${d.name} ${is}, ${parts.join(' and ')}`,
      });
    }
    if (!d.required && all.size > 0) {
      const fields = [...all];
      rules.push({
        rule: `${has(d.name)} || (${fields.map((f) => `!${has(f)}`).join(' && ')})`,
        message: `${listed(fields)} must not be set when ${d.name} is not set`,
      });
    }
    return rules;
  }
  // No discriminator: each variant is told apart by the fields only it has.
  const own = model.variants.map((v) =>
    [...v.fields].filter((f) => model.variants.every((o) => o === v || !o.fields.has(f))),
  );
  const presence = own.map((fields) =>
    fields.length === 1 ? has(fields[0] ?? '') : `(${fields.map(has).join(' || ')})`,
  );
  const names = own.map((fields) => fields.join('/'));
  rules.push({
    rule: `${presence.map((p) => `(${p} ? 1 : 0)`).join(' + ')} == 1`,
    message: `exactly one of ${names.join(', ')} must be set`,
  });
  model.variants.forEach((v, i) => {
    const mine = own[i] ?? [];
    const mustSet = [...v.required].filter(
      (f) => !model.requiredAll.has(f) && !(mine.length === 1 && mine[0] === f),
    );
    // Fields of other variants that are not theirs alone (theirs alone are covered by "exactly one").
    const ownOfOthers = new Set(own.filter((_, j) => j !== i).flat());
    const mustNotSet = [...all].filter((f) => !v.fields.has(f) && !ownOfOthers.has(f));
    if (mustSet.length === 0 && mustNotSet.length === 0) return;
    const body = [...mustSet.map(has), ...mustNotSet.map((f) => `!${has(f)}`)].join(' && ');
    const parts = [
      ...(mustSet.length > 0 ? [`${listed(mustSet)} must be set`] : []),
      ...(mustNotSet.length > 0 ? [`${listed(mustNotSet)} must not be set`] : []),
    ];
    rules.push({
      rule: `${presence[i] ?? ''} ? ${body} : true`,
      message: `when ${names[i] ?? ''} is set, ${parts.join(' and ')}`,
    });
  });
  return rules;
}

function withRules(schema: JSONSchemaProps, rules: readonly ValidationRule[]): JSONSchemaProps {
  if (rules.length === 0) return schema;
  return { ...schema, 'x-kubernetes-validations': [...(schema['x-kubernetes-validations'] ?? []), ...rules] };
}

/**
 * Merges a union of object types into one structural object schema with the rules that enforce the
 * union. Throws a source error (file:line, path, why, what to do) when that cannot be done.
 */
export function mergeObjectUnion(members: readonly UnionMemberSchema[], where: Where): JSONSchemaProps {
  const fail = (problem: string, fix: string): Error => sourceError(where.location, where.path, problem, fix);
  for (const m of members) {
    if (m.schema.type !== 'object' || m.schema.additionalProperties !== undefined) {
      throw fail(
        `is a union whose member \`${m.label}\` is ${m.schema.additionalProperties !== undefined ? 'a map' : (m.schema.type ?? 'free-form')}, not an object with fields`,
        'A union of objects merges their fields into one object: make every member an object type with named fields',
      );
    }
    if (m.schema['x-kubernetes-validations'] || m.schema['x-kubernetes-preserve-unknown-fields']) {
      throw fail(
        `is a union whose member \`${m.label}\` carries type-level markers (CEL rules or @preserveUnknownFields), which would apply to every member once merged`,
        'Put those markers on the union type alias or on the fields instead',
      );
    }
  }
  const propsOf = members.map((m) => m.schema.properties ?? {});
  const requiredOf = members.map((m) => new Set(m.schema.required ?? []));

  // The discriminator: a field every member requires, a string enum in each, with values no two members share.
  const candidates = Object.keys(propsOf[0] ?? {}).filter((name) => {
    const seen = new Set<string>();
    return members.every((_, i) => {
      const p = propsOf[i]?.[name];
      if (!p || p.type !== 'string' || !p.enum || !requiredOf[i]?.has(name)) return false;
      for (const v of p.enum) {
        if (typeof v !== 'string' || seen.has(v)) return false;
        seen.add(v);
      }
      return true;
    });
  });
  const discriminator = candidates[0];

  // Merge the properties; a field in several members must have the same schema in each.
  const properties: Record<string, JSONSchemaProps> = {};
  const firstSeen = new Map<string, string>();
  members.forEach((m, i) => {
    for (const [name, prop] of Object.entries(propsOf[i] ?? {})) {
      const existing = properties[name];
      if (!existing) {
        properties[name] = prop;
        firstSeen.set(name, m.label);
      } else if (name === discriminator) {
        properties[name] = { ...existing, enum: [...(existing.enum ?? []), ...(prop.enum ?? [])] };
      } else if (shape(existing) !== shape(prop)) {
        throw fail(
          `is a union whose members disagree on field \`${name}\`: ${describeType(existing)} in \`${firstSeen.get(name) ?? ''}\`, ${describeType(prop)} in \`${m.label}\`, and one structural schema has one type per field`,
          `Give \`${name}\` the same type in every member, or rename it in one of them`,
        );
      }
    }
  });
  const requiredAll = new Set(
    [...(requiredOf[0] ?? [])].filter((name) => requiredOf.every((r) => r.has(name))),
  );
  const variants: Variant[] = members.map((m, i) => {
    const props = propsOf[i] ?? {};
    return {
      values: discriminator ? ((props[discriminator]?.enum ?? []) as string[]) : [],
      fields: new Set(Object.keys(props).filter((n) => n !== discriminator)),
      required: new Set([...(requiredOf[i] ?? [])].filter((n) => n !== discriminator)),
    };
  });
  if (!discriminator) {
    variants.forEach((v, i) => {
      const mine = [...v.fields].filter((f) => variants.every((o) => o === v || !o.fields.has(f)));
      if (mine.length === 0) {
        throw fail(
          `is a union of object types without a discriminator, and its member \`${members[i]?.label ?? ''}\` has no field of its own, so nothing tells the members apart`,
          'Give every member a required string-literal field with the same name (e.g. `type: "A"`), or give each member a field no other member has',
        );
      }
    });
  }
  const merged: JSONSchemaProps = { type: 'object', properties };
  if (requiredAll.size > 0) merged.required = [...requiredAll].sort();
  const model: UnionModel = {
    ...(discriminator ? { discriminator: { name: discriminator, required: true } } : {}),
    variants,
    requiredAll,
  };
  return withRules(merged, unionRules(model));
}

/** A field of an object marked `@unionMember` or `@unionDiscriminator`. */
export interface MarkedUnionField {
  readonly name: string;
  readonly role: 'member' | 'discriminator';
  /** `@unionMember <value>`: the discriminator value that selects the member. */
  readonly value?: string;
  readonly required: boolean;
  readonly location: SourceLocation;
}

/** The discriminator value of a member field by default: its name with the first letter upper-cased. */
export function defaultMemberValue(field: string): string {
  return `${field.charAt(0).toUpperCase()}${field.slice(1)}`;
}

/**
 * Adds the union rules to an object whose fields are marked `@unionMember` (and optionally one
 * `@unionDiscriminator`), the Kubernetes API conventions' form of a union in one struct.
 */
export function applyMarkedUnion(
  schema: JSONSchemaProps,
  fields: readonly MarkedUnionField[],
  where: Where,
): JSONSchemaProps {
  const members = fields.filter((f) => f.role === 'member');
  const discriminators = fields.filter((f) => f.role === 'discriminator');
  const fail = (f: MarkedUnionField, problem: string, fix: string): Error =>
    sourceError(f.location, `${where.path}.${f.name}`, problem, fix);
  const [d, extra] = discriminators;
  if (extra) throw fail(extra, 'is a second @unionDiscriminator in the same type', 'Keep one per type');
  if (members.length < 2) {
    const at = members[0] ?? d;
    if (at)
      throw fail(
        at,
        `is ${members.length === 0 ? 'a @unionDiscriminator without @unionMember fields' : 'the only @unionMember of its type'}`,
        'A union needs at least two fields marked @unionMember',
      );
    return schema;
  }
  for (const m of members) {
    if (m.required) throw fail(m, 'is a @unionMember but required', 'Make union members optional (`?`)');
    if (!d && m.value !== undefined)
      throw fail(
        m,
        'names a discriminator value, but its type has no @unionDiscriminator field',
        'Add one, or drop the value',
      );
  }
  if (!d) {
    const variants = members.map((m) => ({
      values: [],
      fields: new Set([m.name]),
      required: new Set<string>(),
    }));
    return withRules(schema, unionRules({ variants, requiredAll: new Set() }));
  }
  const dSchema = schema.properties?.[d.name];
  if (!dSchema || dSchema.type !== 'string') {
    throw fail(
      d,
      `is a @unionDiscriminator of type ${dSchema ? describeType(dSchema) : 'unknown'}`,
      'A discriminator is a string (a string-literal union, a string enum, or a string with @enum)',
    );
  }
  const valueOf = (m: MarkedUnionField): string => m.value ?? defaultMemberValue(m.name);
  const byValue = new Map<string, MarkedUnionField>();
  for (const m of members) {
    const clash = byValue.get(valueOf(m));
    if (clash)
      throw fail(
        m,
        `has the discriminator value "${valueOf(m)}", as ${clash.name} does`,
        'Give each member its own value: `@unionMember <Value>`',
      );
    byValue.set(valueOf(m), m);
  }
  let enumValues = dSchema.enum;
  if (enumValues) {
    for (const m of members) {
      if (!enumValues.includes(valueOf(m)))
        throw fail(
          m,
          `is selected by ${d.name} = "${valueOf(m)}", which is not one of ${d.name}'s values (${enumValues.map((v) => JSON.stringify(v)).join(', ')})`,
          `Add the value to ${d.name}'s type, or name the value: \`@unionMember <Value>\``,
        );
    }
  } else {
    enumValues = members.map(valueOf);
  }
  const variants: Variant[] = enumValues.map((value) => {
    const m = byValue.get(String(value));
    return {
      values: [String(value)],
      fields: new Set(m ? [m.name] : []),
      required: new Set(m ? [m.name] : []),
    };
  });
  const properties = { ...schema.properties, [d.name]: { ...dSchema, enum: enumValues } };
  const model: UnionModel = {
    discriminator: { name: d.name, required: d.required },
    variants,
    requiredAll: new Set(),
  };
  return withRules({ ...schema, properties }, unionRules(model));
}

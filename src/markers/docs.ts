import type { ArgSpec, MarkerSpec } from './types.ts';

function argText(name: string | undefined, spec: ArgSpec): string {
  const type = spec.oneOf ? spec.oneOf.join('\\|') : spec.type;
  const core = name === undefined ? `<${type}>` : `${name}=<${type}>`;
  return spec.required ? `\`${core}\`` : `\`[${core}]\``;
}

function usage<E>(spec: MarkerSpec<E>): string {
  const parts: string[] = [];
  if (spec.value) parts.push(argText(undefined, spec.value));
  for (const [name, arg] of Object.entries(spec.args ?? {})) parts.push(argText(name, arg));
  return parts.join(' ') || '—';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The marker reference as Markdown: one table per section, supported markers first, then the
 * markers recognised but left out, with the reason.
 */
export function renderMarkerTable<E>(specs: readonly MarkerSpec<E>[]): string {
  const supported = specs.filter((s) => !s.unsupported);
  const left = specs.filter((s) => s.unsupported);
  const lines: string[] = [];
  lines.push('| marker | on | arguments | controller-gen | effect |', '|---|---|---|---|---|');
  for (const s of supported) {
    const names = [`\`@${s.name}\``, ...(s.aliases ?? []).map((a) => `\`@${a}\``)].join(', ');
    const extra = [
      s.itemsVariant ? `also \`@items:${s.name}\` for array elements` : '',
      s.repeatable ? 'repeatable' : '',
    ]
      .filter(Boolean)
      .join('; ');
    const args = Object.entries(s.args ?? {})
      .map(([n, a]) => `${n}: ${a.help}`)
      .join('; ');
    lines.push(
      `| ${names} | ${s.targets.join(', ')} | ${usage(s)} | ${cell(s.controllerGen ?? '—')} | ${cell(
        [s.help, args && `Arguments: ${args}.`, extra && `(${extra})`].filter(Boolean).join(' '),
      )} |`,
    );
  }
  if (left.length > 0) {
    lines.push('', '### Left out', '', '| controller-gen marker | reason |', '|---|---|');
    for (const s of left) lines.push(`| ${cell(s.controllerGen ?? s.name)} | ${cell(s.unsupported ?? '')} |`);
  }
  return `${lines.join('\n')}\n`;
}

import type { ClientKind } from './client-kinds.ts';
import { clientSource, fitsClientStyle, CLIENT_PRINT_WIDTH } from './client-source.ts';

/** Fixed style (not the project's prettier config), so the output is the same on every machine. */
export const CLIENT_STYLE = {
  parser: 'typescript',
  singleQuote: true,
  printWidth: CLIENT_PRINT_WIDTH,
  trailingComma: 'all',
} as const;

/**
 * The typed client module of one kind; `typeModule` is the import path of its API source. The text is
 * laid out directly in prettier's style; only when a line would need more of prettier's rules (very
 * long names or paths) is prettier loaded to print it (a property test holds the direct text to
 * prettier's output).
 */
export async function renderClient(
  kind: ClientKind,
  typeModule: string,
  runtimeModule: string,
): Promise<string> {
  // The kind's type keeps its name unless that clashes with a name the module declares.
  const declared = ['Kind', 'Key', 'Apply', 'ListOptions', 'WatchOptions', 'Client'].map(
    (s) => kind.kind + s,
  );
  const localType = declared.includes(kind.typeName) ? `${kind.kind}Object` : kind.typeName;
  const input = { ...kind, localType, typeModule, runtimeModule };
  const text = clientSource(input);
  if (fitsClientStyle(text, input)) return text;
  const { format } = await import('prettier');
  return format(text, CLIENT_STYLE);
}

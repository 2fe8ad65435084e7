import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { format } from 'prettier';
import type { ClientKind } from './client-kinds.ts';

/** templates/client/: three levels above this module in both src/ and dist/. */
const TEMPLATE = fileURLToPath(new URL('../../../templates/client/kind-client.ts.hbs', import.meta.url));

let compiled: HandlebarsTemplateDelegate | undefined;

function template(): HandlebarsTemplateDelegate {
  compiled ??= Handlebars.create().compile(readFileSync(TEMPLATE, 'utf8'), { noEscape: true, strict: true });
  return compiled;
}

/** The typed client module of one kind; `typeModule` is the import path of its API source. */
/** Fixed style (not the project's prettier config), so the output is the same on every machine. */
const STYLE = { parser: 'typescript', singleQuote: true, printWidth: 110, trailingComma: 'all' } as const;

export async function renderClient(
  kind: ClientKind,
  typeModule: string,
  runtimeModule: string,
): Promise<string> {
  // The kind's type keeps its name unless that clashes with a name the module declares.
  const declared = ['Kind', 'Key', 'Apply', 'ListOptions', 'WatchOptions', 'Client'].map(
    (s) => kind.kind + s,
  );
  const typeName = declared.includes(kind.typeName) ? `${kind.kind}Object` : kind.typeName;
  const typeImport = typeName === kind.typeName ? typeName : `${kind.typeName} as ${typeName}`;
  const text = template()({
    ...kind,
    typeName,
    typeImport,
    typeModule,
    runtimeModule,
    apiVersion: `${kind.group}/${kind.version}`,
  });
  return format(text, STYLE);
}

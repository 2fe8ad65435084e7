// A StrykerJS ignorer (scripts/mutation.ts loads it): mutants inside a logger call
// (`this.log.info('…', { … })`, also `.warn`, `.error`, `.debug`), and the removal of such a
// statement, are reported as Ignored, not
// tested. A log line's text and fields are no answer of the module; the mutation score is about
// what the module decides. The ignored mutants stay listed in the report with this reason.

interface BabelNode {
  readonly type: string;
  readonly expression?: BabelNode;
  readonly name?: string;
  readonly callee?: BabelNode;
  readonly object?: BabelNode;
  readonly property?: BabelNode;
}

const LEVELS = new Set(['debug', 'info', 'warn', 'error']);
const LOGGERS = new Set(['log', 'logger']);

function loggerName(node: BabelNode | undefined): string | undefined {
  if (node?.type === 'Identifier') return node.name;
  if (node?.type === 'MemberExpression' && node.property?.type === 'Identifier') return node.property.name;
  return undefined;
}

/** `log.info(…)`, `this.log.warn(…)`, `this.logger.error(…)`. */
export function isLoggerCall(node: BabelNode): boolean {
  if (node.type !== 'CallExpression' || node.callee?.type !== 'MemberExpression') return false;
  const level = node.callee.property;
  const name = loggerName(node.callee.object);
  return (
    level?.type === 'Identifier' && LEVELS.has(level.name ?? '') && name !== undefined && LOGGERS.has(name)
  );
}

/** The call, or the statement that is only the call (its removal is a mutant too). */
function isLogLine(node: BabelNode): boolean {
  if (node.type === 'ExpressionStatement' && node.expression !== undefined)
    return isLoggerCall(node.expression);
  return isLoggerCall(node);
}

export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'op-gen-log-calls',
    value: {
      shouldIgnore(path: { readonly node: BabelNode }): string | undefined {
        return isLogLine(path.node)
          ? 'a log line: its text and fields are not what the module decides'
          : undefined;
      },
    },
  },
];

import type { ts as TS } from 'ts-morph';
import { ProblemsError, type Problem } from '../shared/problems.ts';

/**
 * The compiler errors that mean a name or module does not resolve: what a typo or a broken import
 * gives. Only these are taken from the (costlier) semantic diagnostics; a full type check of the
 * project is the project's own `tsc`'s job, and op-gen's programs see a stub lib where other errors
 * would be noise.
 */
export const NAME_RESOLUTION_CODES: ReadonlySet<number> = new Set([
  2300, // Duplicate identifier 'x'.
  2304, // Cannot find name 'x'.
  2305, // Module 'm' has no exported member 'x'.
  2307, // Cannot find module 'm' or its corresponding type declarations.
  2314, // Generic type 'x' requires n type argument(s).
  2459, // Module 'm' declares 'x' locally, but it is not exported.
  2460, // Module 'm' declares 'x' locally, but it is exported as 'y'.
  2503, // Cannot find namespace 'x'.
  2552, // Cannot find name 'x'. Did you mean 'y'?
  2614, // Module 'm' has no exported member 'x'. Did you mean to use 'import x from m' instead?
  2694, // Namespace 'n' has no exported member 'x'.
  2724, // 'm' has no exported member named 'x'. Did you mean 'y'?
  2749, // 'x' refers to a value, but is being used as a type here.
  2693, // 'x' only refers to a type, but is being used as a value here.
  2440, // Import declaration conflicts with local declaration of 'x'.
  2451, // Cannot redeclare block-scoped variable 'x'.
  2687, // All declarations of 'x' must have identical modifiers.
  2717, // Subsequent property declarations must have the same type.
]);

export interface DiagnosticsOptions {
  /** Also the name-resolution errors of the semantic diagnostics (needs a program that resolves imports). */
  readonly names: boolean;
  /** The path shown for a file (relative to the project). */
  readonly display: (fileName: string) => string;
}

/** `file:line:col: message (TSnnnn)` for each diagnostic. */
export function formatDiagnostics(
  ts: typeof TS,
  diagnostics: readonly TS.Diagnostic[],
  display: (fileName: string) => string,
): Problem[] {
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return { text: `${message} (TS${d.code})` };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return { text: `${display(d.file.fileName)}:${line + 1}:${character + 1}: ${message} (TS${d.code})` };
  });
}

/**
 * The syntax errors (and, with `names`, the unresolved names and modules) of `files`: a source that
 * does not parse is never read as if it did (a stray brace would silently drop a whole interface).
 * Grammar errors the checker finds (codes below 2000, e.g. a modifier given twice) count as syntax.
 */
export function sourceProblems(
  ts: typeof TS,
  program: TS.Program,
  files: readonly TS.SourceFile[],
  options: DiagnosticsOptions,
): Problem[] {
  const found: TS.Diagnostic[] = [];
  for (const file of files) {
    const syntactic = program.getSyntacticDiagnostics(file);
    found.push(...syntactic);
    // A file that does not parse gives cascades of follow-on semantic errors: its syntax errors are enough.
    if (syntactic.length > 0 || !options.names) continue;
    // The full check of a file costs about as much as the walk; a cheap pass over its names decides
    // whether it is needed (the messages then come from the compiler itself).
    if (!needsFullCheck(ts, program.getTypeChecker(), file)) continue;
    for (const d of program.getSemanticDiagnostics(file)) {
      if (d.category === ts.DiagnosticCategory.Error && (d.code < 2000 || NAME_RESOLUTION_CODES.has(d.code)))
        found.push(d);
    }
  }
  return formatDiagnostics(ts, found, options.display);
}

/**
 * Whether a file may have a name-resolution or grammar error: an identifier that resolves to
 * nothing, an import whose module or name does not resolve, a name declared or imported twice, a
 * modifier given twice. False alarms only cost the full check; the property tests (real compiler as
 * the oracle) keep this from missing one.
 */
function needsFullCheck(ts: typeof TS, checker: TS.TypeChecker, file: TS.SourceFile): boolean {
  const declared = new Set<string>();
  let suspicious = false;
  const visit = (node: TS.Node): void => {
    if (suspicious) return;
    if (ts.canHaveModifiers(node)) {
      // A modifier given twice (allocates only for the rare node with two or more modifiers).
      const modifiers = ts.getModifiers(node);
      if (
        modifiers &&
        modifiers.length > 1 &&
        new Set(modifiers.map((m) => m.kind)).size !== modifiers.length
      )
        suspicious = true;
    }
    // `List<>`: the parser accepts an empty type argument list, the checker reports it (TS1099);
    // an empty type parameter list is checked too (a false alarm only costs the full check).
    const lists = node as { typeArguments?: TS.NodeArray<TS.Node>; typeParameters?: TS.NodeArray<TS.Node> };
    if (lists.typeArguments?.length === 0 || lists.typeParameters?.length === 0) suspicious = true;
    // Other shapes the parser accepts and the checker's grammar check rejects (found by the
    // broken-input fuzz): `List<string,>` (TS1009), `[]: T` (TS1096), `a: T = 1` in an interface
    // (TS1246), `{ a?: 1 }` in an object literal (TS1162), a trailing comma after an expression.
    if (lists.typeArguments?.hasTrailingComma || lists.typeParameters?.hasTrailingComma) suspicious = true;
    if (grammarSuspect(ts, node)) suspicious = true;
    if (node.parent === file && ts.isImportDeclaration(node)) {
      if (!checker.getSymbolAtLocation(node.moduleSpecifier)?.declarations?.length) suspicious = true;
      const bindings = node.importClause?.namedBindings;
      for (const el of bindings && ts.isNamedImports(bindings) ? bindings.elements : []) {
        const local = checker.getSymbolAtLocation(el.name);
        const target = local && local.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(local) : local;
        if (!target?.declarations?.length || declared.has(el.name.text)) suspicious = true;
        declared.add(el.name.text);
      }
      const defaultImport = node.importClause?.name;
      if (defaultImport) {
        // `import type, { A } from 'm'` imports a default named `type`: TS1192 when `m` has none.
        const local = checker.getSymbolAtLocation(defaultImport);
        const target = local && local.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(local) : local;
        if (!target?.declarations?.length || declared.has(defaultImport.text)) suspicious = true;
        declared.add(defaultImport.text);
      }
      return;
    }
    if (
      node.parent === file &&
      (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node))
    ) {
      // An interface may merge with another of its name; anything else twice is an error.
      if (declared.has(node.name.text) && !ts.isInterfaceDeclaration(node)) suspicious = true;
      declared.add(node.name.text);
    }
    if (
      ts.isIdentifier(node) &&
      isReference(ts, node) &&
      !checker.getSymbolAtLocation(node)?.declarations?.length
    ) {
      // (An unresolved name is no symbol or the checker's `unknown` symbol, which has no declarations.)
      suspicious = true;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return suspicious;
}

/**
 * Shapes the parser builds without a syntax error that the checker's grammar check rejects: an index
 * signature without exactly one plain typed parameter (TS1096, TS1019, TS1020, TS1021), an interface
 * or type-literal member with an initializer (TS1246, TS1247), an optional or definite object-literal
 * member (TS1162, TS1255), a trailing comma in a declaration list or heritage clause (TS1009),
 * `readonly` on anything but an array or tuple type (TS1354), a type member with a modifier other
 * than `readonly` (TS1070, TS1071), a required tuple element after an optional one (TS1257).
 */
function grammarSuspect(ts: typeof TS, node: TS.Node): boolean {
  if (ts.isIndexSignatureDeclaration(node)) {
    const [p, ...rest] = node.parameters;
    return (
      !p ||
      rest.length > 0 ||
      node.parameters.hasTrailingComma ||
      !p.type ||
      p.questionToken !== undefined ||
      p.initializer !== undefined ||
      p.dotDotDotToken !== undefined ||
      (ts.getModifiers(p)?.length ?? 0) > 0 ||
      (ts.getModifiers(node)?.some((m) => m.kind !== ts.SyntaxKind.ReadonlyKeyword) ?? false)
    );
  }
  // A type member takes no modifier but `readonly` (`public a: T`, `export a: T`: TS1070, TS1071).
  if (ts.isPropertySignature(node) || ts.isMethodSignature(node) || ts.isIndexSignatureDeclaration(node)) {
    if (ts.getModifiers(node)?.some((m) => m.kind !== ts.SyntaxKind.ReadonlyKeyword)) return true;
  }
  // A required tuple element after an optional one (`[a?: T, b: U]`, TS1257).
  if (ts.isTupleTypeNode(node)) {
    let optional = false;
    for (const e of node.elements) {
      const isOptional =
        ts.isOptionalTypeNode(e) || (ts.isNamedTupleMember(e) && e.questionToken !== undefined);
      const isRest = ts.isRestTypeNode(e) || (ts.isNamedTupleMember(e) && e.dotDotDotToken !== undefined);
      if (optional && !isOptional && !isRest) return true;
      optional ||= isOptional;
    }
  }
  if (ts.isPropertySignature(node)) return (node as { initializer?: TS.Node }).initializer !== undefined;
  if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
    // The parser keeps these tokens for the grammar check; the public types leave them out.
    const tokens = node as { questionToken?: TS.Node; exclamationToken?: TS.Node };
    return tokens.questionToken !== undefined || tokens.exclamationToken !== undefined;
  }
  if (ts.isVariableDeclarationList(node)) return node.declarations.hasTrailingComma;
  // `readonly readonly T[]`, `readonly T` (TS1354): readonly only on an array or tuple type.
  if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword) {
    return !ts.isArrayTypeNode(node.type) && !ts.isTupleTypeNode(node.type);
  }
  if (ts.isHeritageClause(node)) return node.types.hasTrailingComma || node.types.length === 0;
  return false;
}

/** An identifier that refers to something (not a name being declared, not a property name). */
function isReference(ts: typeof TS, node: TS.Identifier): boolean {
  const parent = node.parent;
  if (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isQualifiedName(parent) && parent.right === node) ||
    ((ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isEnumMember(parent) ||
      ts.isParameter(parent) ||
      ts.isTypeParameterDeclaration(parent) ||
      ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isInterfaceDeclaration(parent) ||
      ts.isTypeAliasDeclaration(parent) ||
      ts.isEnumDeclaration(parent) ||
      ts.isModuleDeclaration(parent) ||
      ts.isBindingElement(parent) ||
      ts.isGetAccessor(parent) ||
      ts.isSetAccessor(parent) ||
      ts.isNamespaceImport(parent) ||
      ts.isImportClause(parent) ||
      ts.isImportSpecifier(parent) ||
      ts.isExportSpecifier(parent) ||
      ts.isLabeledStatement(parent) ||
      ts.isMappedTypeNode(parent) ||
      ts.isNamedTupleMember(parent)) &&
      (parent as { name?: TS.Node }).name === node)
  )
    return false;
  if (ts.isPropertyAssignment(parent) || ts.isShorthandPropertyAssignment(parent))
    return parent.name !== node || ts.isShorthandPropertyAssignment(parent);
  return !ts.isJSDoc(parent);
}

/** Throws every problem `sourceProblems` finds, with the count; returns when the files are sound. */
export function assertSourcesCompile(
  ts: typeof TS,
  program: TS.Program,
  files: readonly TS.SourceFile[],
  options: DiagnosticsOptions,
): void {
  const problems = sourceProblems(ts, program, files, options);
  if (problems.length > 0) throw new ProblemsError(problems);
}

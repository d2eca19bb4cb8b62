import Handlebars from 'handlebars';
import type { PartName, TemplateParts } from './templates';

/** What a part of a template reads and calls, found in its syntax tree. */
export interface TemplateReads {
  /** Paths under `user.` and `data.` the part reads, sorted, each once. */
  variables: string[];
  /** Each helper called (with parameters, or as a block), where (line and column from 1), in the order written. */
  helperCalls: Array<{ name: string; line: number; column: number }>;
}

/** A block's names for its items (`as |item index|`): what each stands for (null: not a user or data path, e.g. the index). */
type BlockParams = Map<string, string | null>;

/**
 * Where a piece of the template is evaluated: the path of its context (`''` the root, which holds
 * `user` and `data`; null unknown), the scope around it (what `../` goes up to) and the innermost
 * block params in reach (each pointing to the ones around it). Linked, so a block costs the same at
 * any depth.
 */
interface Scope {
  context: string | null;
  parent: Scope | undefined;
  blockParams: { names: BlockParams; outer: Scope['blockParams'] } | undefined;
}

type Node = hbs.AST.Node;

/** Helpers whose block runs with the first parameter as its context. */
const CONTEXT_HELPERS = new Set(['each', 'with']);
const READ_ROOTS = /^(?:user|data)\./;
const SCOPED = /^(?:\.|this\b)/;

const joinPath = (base: string, parts: string[]): string => [base, ...parts].filter(Boolean).join('.');

/** The full path (from the root) a path expression names where it stands; null when it names no user or data path. */
function resolve(path: hbs.AST.PathExpression, scope: Scope): string | null {
  if (path.data) return path.parts[0] === 'root' ? joinPath('', path.parts.slice(1)) : null; // @root.user.name; @index, @first…
  const [head, ...rest] = path.parts;
  if (path.depth === 0 && head !== undefined && !SCOPED.test(path.original)) {
    for (let params = scope.blockParams; params; params = params.outer) {
      const bound = params.names.get(head);
      if (bound !== undefined) return bound === null ? null : joinPath(bound, rest);
    }
  }
  let base: Scope | undefined = scope;
  for (let up = 0; up < path.depth && base; up++) base = base.parent;
  return base === undefined || base.context === null ? null : joinPath(base.context, path.parts);
}

/** Whether a mustache or block names a helper to call rather than a value to read (a bare `{{name}}` is read). */
const callsHelper = (node: { params: unknown[]; hash?: { pairs: unknown[] } | null }) =>
  node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;

/**
 * What a template part reads under `user.` and `data.` and which helpers it calls, from its syntax
 * tree: paths inside `{{#each}}`, `{{#with}}` and a section (`{{#data.items}}`) are relative to
 * their block's context, `this` and `.` are the context itself, `../` goes up one level, block
 * params (`as |item|`) name the items, and helper parameters and hash values are reads; `@index`
 * and the like, and literals, are not. Throws what Handlebars' parser throws on a syntax error.
 * The walk visits each node once, with a stack of its own (no recursion, whatever the nesting).
 */
export function templateReads(source: string): TemplateReads {
  const variables = new Set<string>();
  const helperCalls: TemplateReads['helperCalls'] = [];
  const read = (path: string | null) => {
    if (path !== null && READ_ROOTS.test(path)) variables.add(path);
  };
  const called = (node: hbs.AST.MustacheStatement | hbs.AST.BlockStatement) => {
    const { original } = node.path as hbs.AST.PathExpression;
    if (typeof original === 'string') helperCalls.push({ name: original, line: node.loc.start.line, column: node.loc.start.column + 1 });
  };
  const pending: Array<{ node: Node | null | undefined; scope: Scope }> = [
    { node: Handlebars.parse(source), scope: { context: '', parent: undefined, blockParams: undefined } },
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { node, scope } = next;
    if (!node) continue;
    const visit = (child: Node | null | undefined, where = scope) => pending.push({ node: child, scope: where });
    switch (node.type) {
      case 'Program':
        for (const statement of (node as hbs.AST.Program).body) visit(statement);
        break;
      case 'PathExpression':
        read(resolve(node as hbs.AST.PathExpression, scope));
        break;
      case 'MustacheStatement':
      case 'SubExpression':
      case 'Decorator': {
        const call = node as hbs.AST.MustacheStatement;
        if (callsHelper(call)) called(call);
        else visit(call.path);
        for (const param of call.params) visit(param);
        visit(call.hash);
        break;
      }
      case 'Hash':
        for (const pair of (node as hbs.AST.Hash).pairs) visit(pair.value);
        break;
      case 'PartialStatement':
      case 'PartialBlockStatement': {
        const partial = node as hbs.AST.PartialStatement & { program?: hbs.AST.Program };
        for (const param of partial.params) visit(param);
        visit(partial.hash);
        visit(partial.program);
        break;
      }
      case 'BlockStatement':
      case 'DecoratorBlock': {
        const block = node as hbs.AST.BlockStatement;
        const [first] = block.params;
        let inner: string | null;
        if (callsHelper(block)) {
          called(block);
          const helper = block.path.original;
          const changesContext = CONTEXT_HELPERS.has(helper) && first?.type === 'PathExpression';
          inner = changesContext ? resolve(first as hbs.AST.PathExpression, scope) : scope.context;
        } else {
          // A section ({{#data.items}}…{{/data.items}}): a list loops, an object becomes the context.
          inner = block.path.type === 'PathExpression' ? resolve(block.path, scope) : null;
          visit(block.path);
        }
        for (const param of block.params) visit(param);
        visit(block.hash);
        const names = block.program?.blockParams ?? [];
        const blockParams = names.length
          ? { names: new Map(names.map((name, i) => [name, i === 0 ? inner : null])), outer: scope.blockParams }
          : scope.blockParams;
        // A block that keeps its context ({{#if}}) is no level for `../` to go up.
        const within = inner === scope.context ? { ...scope, blockParams } : { context: inner, parent: scope, blockParams };
        visit(block.program, within);
        visit(block.inverse);
        break;
      }
      default:
        break; // text, comments, literals
    }
  }
  helperCalls.sort((a, b) => a.line - b.line || a.column - b.column);
  return { variables: [...variables].sort(), helperCalls };
}

/**
 * The paths under `user.` and `data.` that the parts read (see templateReads), those of the
 * layout's parts too when `layout` is given (its `content` is no variable), sorted, each once; a
 * part that does not parse is left out (its syntax errors say why).
 */
export function templateVariables(parts: Partial<TemplateParts>): string[] {
  const variables = new Set<string>();
  for (const source of [parts.subject, parts.html, parts.text, parts.layout?.html, parts.layout?.text]) {
    if (typeof source !== 'string') continue;
    try {
      for (const path of templateReads(source).variables) variables.add(path);
    } catch {
      continue;
    }
  }
  return [...variables].sort();
}

/** Where in a template a render error happened: the part (of its layout when `inLayout`), and the line and column (from 1) when known. */
export interface RenderErrorSite {
  part: PartName;
  line: number | null;
  column: number | null;
  inLayout?: true;
}

/** The helper a render error names: Handlebars' "Missing helper: "x"", or one refused here ("the {{log}} helper …"). */
const HELPER_NAMED = /Missing helper: "([^"]+)"|the \{\{([^}\s]+)\}\} helper/;

/**
 * The part (and the place in it) a render error comes from, when its message names a helper: the
 * first call of that helper, in the order the parts render (html, its layout's html, subject,
 * text, its layout's text); undefined when the message names none, or no part that parses calls it.
 */
export function renderErrorSite(parts: TemplateParts, message: string): RenderErrorSite | undefined {
  const named = HELPER_NAMED.exec(message);
  const helper = named?.[1] ?? named?.[2];
  if (helper === undefined) return undefined;
  const inOrder = [
    { part: 'html', source: parts.html },
    { part: 'html', source: parts.layout?.html, inLayout: true },
    { part: 'subject', source: parts.subject },
    { part: 'text', source: parts.text },
    { part: 'text', source: parts.layout?.text, inLayout: true },
  ] as const;
  for (const { part, source, ...where } of inOrder) {
    if (typeof source !== 'string') continue;
    let calls: TemplateReads['helperCalls'];
    try {
      calls = templateReads(source).helperCalls;
    } catch {
      continue; // a part that does not parse rendered nothing
    }
    const call = calls.find((c) => c.name === helper);
    if (call) return { part, line: call.line, column: call.column, ...where };
  }
  return undefined;
}

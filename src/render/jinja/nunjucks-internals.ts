// The parts of nunjucks brine builds on that its type definitions do not describe (parser,
// compiler, nodes, lexer, runtime): untyped JS, so they are `any` here and only here.

import { createRequire } from 'node:module';
import nunjucks from 'nunjucks';

// biome-ignore lint/suspicious/noExplicitAny: nunjucks' parser, compiler and node classes are untyped JS
export type Any = any;

const n = nunjucks as Any;
export const nodes: Any = n.nodes;
export const lexer: Any = n.lexer;
export const ParserBase: Any = n.parser.Parser;
export const CompilerBase: Any = n.compiler.Compiler;
// not re-exported by nunjucks' index: it lifts `super()` out of blocks
export const transformer: Any = createRequire(import.meta.url)('nunjucks/src/transformer.js');
export const runtime: Any = n.runtime;
export { nunjucks };

/** A construct Jinja2 renders differently from what brine can do: refused at compile time. */
export class Unsupported extends Error {
  constructor(
    message: string,
    readonly lineno: number,
    readonly colno: number,
  ) {
    super(message);
    this.name = 'Unsupported';
  }
}

// brine's own node types (compiled by BrineCompiler's compile<Name> methods)
export const PySlice: Any = nodes.Node.extend('PySlice', { fields: ['start', 'stop', 'step'] });
export const PyTuple: Any = nodes.NodeList.extend('PyTuple');
export const PyFloatLit: Any = nodes.Node.extend('PyFloatLit', { fields: ['value'] });
export const LoadData: Any = nodes.Node.extend('LoadData', { fields: ['kind', 'template', 'body'] });
export const DoStmt: Any = nodes.Node.extend('DoStmt', { fields: ['expr'] });
export const LoopControl: Any = nodes.Node.extend('LoopControl', { fields: ['kind'] });
export const WithStmt: Any = nodes.Node.extend('WithStmt', { fields: ['targets', 'values', 'body'] });
/** `*expr` among a call's positional arguments. */
export const PyStarArgs: Any = nodes.Node.extend('PyStarArgs', { fields: ['expr'] });
/** `**expr` among a call's keyword arguments. */
export const PyStarKwargs: Any = nodes.Node.extend('PyStarKwargs', { fields: ['expr'] });

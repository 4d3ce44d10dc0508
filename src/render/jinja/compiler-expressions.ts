// The expression half of brine's code generator: every operator, lookup, call, filter and test
// of a Jinja expression compiles to a call into `env.brine` (runtime.ts), the Python value model,
// so that `{{ True }}` prints True, `[]` is false and `'%s' % x` formats. Statements are in
// compiler.ts.

import { type Any, CompilerBase, nodes, PyStarKwargs, Unsupported } from './nunjucks-internals.js';

const COMPARE: Record<string, string> = { '==': '==', '!=': '!=', '<': '<', '>': '>', '<=': '<=', '>=': '>=' };
const BINOPS: Record<string, string> = { Add: '+', Sub: '-', Mul: '*', Div: '/', FloorDiv: '//', Mod: '%', Pow: '**' };

export function js(s: string): string {
  return JSON.stringify(s);
}

export interface CompilerNames {
  filters: ReadonlySet<string>;
  tests: ReadonlySet<string>;
}

export class ExpressionCompiler extends CompilerBase {
  names!: CompilerNames;

  /** `lineno = N, colno = M, ` (1-based) so that a runtime error names the line being evaluated. */
  pos(node: Any): void {
    this._emit(`(lineno = ${node.lineno + 1}, colno = ${node.colno + 1}, `);
  }

  /** `, "name"` for a variable or lookup, so that StrictUndefined errors can name it. */
  what(node: Any): string {
    if (node instanceof nodes.Symbol || node instanceof nodes.LookupVal) return `, ${js(this.exprName(node))}`;
    return '';
  }

  exprName(node: Any): string {
    if (node instanceof nodes.Symbol) return node.value;
    if (node instanceof nodes.LookupVal) {
      const key = node.val instanceof nodes.Literal ? node.val.value : '...';
      return node.bracket ? `${this.exprName(node.target)}[${JSON.stringify(key)}]` : `${this.exprName(node.target)}.${key}`;
    }
    if (node instanceof nodes.FunCall) return `${this.exprName(node.name)}(...)`;
    return 'expression';
  }

  /** brine's own expression nodes are expressions too (nunjucks asserts a fixed list). */
  _compileExpression(node: Any, frame: Any): void {
    this.compile(node, frame);
  }

  compileOutput(node: Any, frame: Any): void {
    for (const child of node.children) {
      if (child instanceof nodes.TemplateData) {
        if (child.value) {
          this._emit(`${this.buffer} += `);
          this.compileLiteral(child, frame);
          this._emitLine(';');
        }
      } else {
        this._emit(`${this.buffer} += `);
        this.pos(child);
        this._emit('env.brine.out(');
        this.compile(child, frame);
        this._emitLine(`${this.what(child)}));`);
      }
    }
  }

  /** Names resolve through own properties only: `constructor` or `toString` are undefined, as in Jinja2. */
  /**
   * Variables a `set` declared: Jinja2 assigns them only when the `set` runs, so one inside an
   * `if` that did not run leaves the name as it was (a macro parameter, a context variable).
   */
  readonly setIds = new Set<string>();

  compileSymbol(node: Any, frame: Any): void {
    const id = frame.lookup(node.value);
    if (id && this.setIds.has(id)) this._emit(`(${id} !== undefined ? ${id} : env.brine.lookup(context, frame, ${js(node.value)}))`);
    else if (id) this._emit(id);
    // Jinja2's `self`: the template's blocks, callable (`self.title()`)
    else if (node.value === 'self') this._emit('env.brine.selfRef(context, frame, env, runtime)');
    else this._emit(`env.brine.lookup(context, frame, ${js(node.value)})`);
  }

  compilePyFloatLit(node: Any): void {
    this._emit(Number.isInteger(node.value) ? `env.brine.float(${node.value})` : String(node.value));
  }

  compilePyTuple(node: Any, frame: Any): void {
    this._emit('env.brine.tuple(');
    this._compileAggregate(node, frame, '[', ']');
    this._emit(')');
  }

  compileDict(node: Any, frame: Any): void {
    this._emit('env.brine.dict([');
    node.children.forEach((pair: Any, i: number) => {
      if (i > 0) this._emit(',');
      this._emit('[');
      this.compile(pair.key, frame);
      this._emit(',');
      this.compile(pair.value, frame);
      this._emit(']');
    });
    this._emit('])');
  }

  /** Call keywords: keys are names, not expressions; a `**mapping` is merged in after them. */
  compileKeywordArgs(node: Any, frame: Any): void {
    const pairs = node.children.filter((c: Any) => !(c instanceof PyStarKwargs));
    const spread = node.children.find((c: Any) => c instanceof PyStarKwargs);
    this._emit(spread ? 'env.brine.starKwargs({' : 'runtime.makeKeywordArgs({');
    pairs.forEach((pair: Any, i: number) => {
      if (i > 0) this._emit(',');
      if (!(pair.key instanceof nodes.Symbol)) this.fail('keyword argument name expected', pair.key.lineno, pair.key.colno);
      this._emit(`${js(pair.key.value)}: `);
      this.compile(pair.value, frame);
    });
    this._emit('}');
    if (spread) {
      this._emit(', ');
      this.compile(spread.expr, frame);
    }
    this._emit(')');
  }

  /** `*expr` in a call: spread into the positional arguments as Python iterates it. */
  compilePyStarArgs(node: Any, frame: Any): void {
    this._emit('...env.brine.iter(');
    this.compile(node.expr, frame);
    this._emit(')');
  }

  compileInlineIf(node: Any, frame: Any): void {
    this._emit('(env.brine.truthy(');
    this.compile(node.cond, frame);
    this._emit(') ? ');
    this.compile(node.body, frame);
    this._emit(' : ');
    if (node.else_ !== null) this.compile(node.else_, frame);
    else this._emit('env.brine.PLAIN_UNDEFINED');
    this._emit(')');
  }

  compileIn(node: Any, frame: Any): void {
    this.pos(node);
    this._emit('env.brine.contains(');
    this.compile(node.right, frame);
    this._emit(',');
    this.compile(node.left, frame);
    this._emit('))');
  }

  compileIs(node: Any, frame: Any): void {
    const right = node.right;
    let name: string;
    let args: Any = null;
    if (right instanceof nodes.Literal && (right.value === null || typeof right.value === 'boolean')) name = right.value === null ? 'none' : String(right.value);
    else if (right instanceof nodes.FunCall && right.name instanceof nodes.Symbol) {
      name = right.name.value;
      args = right.args;
    } else if (right instanceof nodes.Symbol) name = right.value;
    else throw new Unsupported('unsupported test expression after "is"', node.lineno, node.colno);
    if (!this.names.tests.has(name)) throw new Unsupported(`the test '${name}' is not supported by brine`, node.lineno, node.colno);
    this.pos(node);
    this._emit(`env.brine.test(${js(name)}, `);
    this.compile(node.left, frame);
    if (args) {
      for (const a of args.children) {
        this._emit(',');
        this.compile(a, frame);
      }
    }
    this._emit('))');
  }

  compileOr(node: Any, frame: Any): void {
    this._emit('env.brine.or(');
    this.compile(node.left, frame);
    this._emit(', () => (');
    this.compile(node.right, frame);
    this._emit('))');
  }

  compileAnd(node: Any, frame: Any): void {
    this._emit('env.brine.and(');
    this.compile(node.left, frame);
    this._emit(', () => (');
    this.compile(node.right, frame);
    this._emit('))');
  }

  compileNot(node: Any, frame: Any): void {
    this._emit('!env.brine.truthy(');
    this.compile(node.target, frame);
    this._emit(')');
  }

  _binop(node: Any, frame: Any, op: string): void {
    this.pos(node);
    this._emit(`env.brine.binop(${js(op)}, `);
    this.compile(node.left, frame);
    this._emit(', ');
    this.compile(node.right, frame);
    this._emit('))');
  }

  compileAdd(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Add!);
  }
  compileSub(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Sub!);
  }
  compileMul(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Mul!);
  }
  compileDiv(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Div!);
  }
  compileFloorDiv(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.FloorDiv!);
  }
  compileMod(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Mod!);
  }
  compilePow(node: Any, frame: Any): void {
    this._binop(node, frame, BINOPS.Pow!);
  }

  compileNeg(node: Any, frame: Any): void {
    this.pos(node);
    this._emit('env.brine.unop("-", ');
    this.compile(node.target, frame);
    this._emit('))');
  }

  compilePos(node: Any, frame: Any): void {
    this.pos(node);
    this._emit('env.brine.unop("+", ');
    this.compile(node.target, frame);
    this._emit('))');
  }

  compileConcat(node: Any, frame: Any): void {
    this._emit('env.brine.concat(');
    this.compile(node.left, frame);
    this._emit(', ');
    this.compile(node.right, frame);
    this._emit(')');
  }

  compileCompare(node: Any, frame: Any): void {
    this.pos(node);
    this._emit('env.brine.compare(');
    this.compile(node.expr, frame);
    for (const op of node.ops) {
      const sym = COMPARE[op.type];
      if (!sym) throw new Unsupported(`the operator ${op.type} is not Jinja2`, op.lineno, op.colno);
      this._emit(`, ${js(sym)}, () => (`);
      this.compile(op.expr, frame);
      this._emit(')');
    }
    this._emit('))');
  }

  compileLookupVal(node: Any, frame: Any): void {
    this.pos(node);
    if (node.val && node.val.typename === 'PySlice') {
      this._emit('env.brine.slice(');
      this.compile(node.target, frame);
      for (const part of [node.val.start, node.val.stop, node.val.step]) {
        this._emit(', ');
        if (part === null) this._emit('null');
        else this.compile(part, frame);
      }
      this._emit('))');
      return;
    }
    this._emit('env.brine.getattr(');
    this.compile(node.target, frame);
    this._emit(', ');
    this.compile(node.val, frame);
    this._emit(`, ${node.bracket === true}, ${js(this.exprName(node.target))}, ${js(this.exprName(node))}))`);
  }

  compileFunCall(node: Any, frame: Any): void {
    this.pos(node);
    this._emit('env.brine.call(');
    this.compile(node.name, frame);
    this._emit(`, ${js(this.exprName(node.name))}, `);
    this._compileAggregate(node.args, frame, '[', ']');
    this._emit('))');
  }

  compileFilter(node: Any, frame: Any): void {
    const name = node.name.value;
    if (!this.names.filters.has(name)) throw new Unsupported(`the filter '${name}' is not supported by brine`, node.lineno, node.colno);
    this.pos(node);
    this._emit(`env.brine.filter(${js(name)}, `);
    this._compileAggregate(node.args, frame, '[', ']');
    this._emit('))');
  }
}

// nunjucks' code generator with Jinja2's semantics: every operator, test, lookup, print, loop and
// assignment goes through the Python value model in `env.brine` (see runtime.ts), so that
// `{{ True }}` prints True, `[] ` is false, `'%s' % x` formats, and a `set` inside a loop stays
// in the loop. Constructs that cannot be made exact are refused here, at compile time.

import { type Any, CompilerBase, nodes, Unsupported } from './nunjucks-internals.js';

const COMPARE: Record<string, string> = { '==': '==', '!=': '!=', '<': '<', '>': '>', '<=': '<=', '>=': '>=' };
const BINOPS: Record<string, string> = { Add: '+', Sub: '-', Mul: '*', Div: '/', FloorDiv: '//', Mod: '%', Pow: '**' };

function js(s: string): string {
  return JSON.stringify(s);
}

export interface CompilerNames {
  filters: ReadonlySet<string>;
  tests: ReadonlySet<string>;
}

export class BrineCompiler extends CompilerBase {
  names!: CompilerNames;
  loopDepth = 0;

  compileLoopControl(node: Any): void {
    if (this.loopDepth === 0) throw new Unsupported(`${node.kind} outside of a for loop`, node.lineno, node.colno);
    this._emitLine(`${node.kind};`);
  }

  _compileMacro(node: Any, frame: Any): string {
    for (const sym of node.body.findAll(nodes.Symbol)) {
      if (sym.value === 'varargs' || sym.value === 'kwargs') throw new Unsupported(`macros using ${sym.value} are not supported`, sym.lineno, sym.colno);
    }
    const saved = this.loopDepth;
    this.loopDepth = 0;
    let id: string;
    try {
      id = super._compileMacro(node, frame);
    } finally {
      this.loopDepth = saved;
    }
    // Jinja2 refuses extra or unknown arguments, which nunjucks would drop silently
    const names = node.args.children.flatMap((a: Any) => (a instanceof nodes.Dict ? a.children.map((p: Any) => p.key.value) : [a.value]));
    this._emitLine(`${id}.brineParams = ${JSON.stringify(names)};`);
    return id;
  }

  /** Inside an included template, Jinja2 does not see the including loop's `loop`. */
  compileInclude(node: Any, frame: Any): void {
    this._emitLine('var tasks = [];');
    this._emitLine('tasks.push(');
    this._emitLine('function(callback) {');
    const id = this._compileGetTemplate(node, frame, false, node.ignoreMissing);
    this._emitLine(`callback(null,${id});});`);
    this._emitLine('});');
    const id2 = this._tmpid();
    this._emitLine('tasks.push(');
    this._emitLine('function(template, callback){');
    this._emitLine(`template.render(context.getVariables(), env.brine.includeFrame(frame), ${this._makeCallback(id2)}`);
    this._emitLine(`callback(null,${id2});});`);
    this._emitLine('});');
    this._emitLine('tasks.push(');
    this._emitLine('function(result, callback){');
    this._emitLine(`${this.buffer} += result;`);
    this._emitLine('callback(null);');
    this._emitLine('});');
    this._emitLine('env.waterfall(tasks, function(){');
    this._addScopeLevel();
  }

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
  compileSymbol(node: Any, frame: Any): void {
    const id = frame.lookup(node.value);
    if (id) this._emit(id);
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
      if (pair.key instanceof nodes.Literal && typeof pair.key.value !== 'string') {
        throw new Unsupported('only string dict keys are supported (JS objects cannot keep Python int or bool keys)', pair.key.lineno, pair.key.colno);
      }
      this._emit('[');
      this.compile(pair.key, frame);
      this._emit(',');
      this.compile(pair.value, frame);
      this._emit(']');
    });
    this._emit('])');
  }

  /** Call keywords: keys are names, not expressions. */
  compileKeywordArgs(node: Any, frame: Any): void {
    this._emit('runtime.makeKeywordArgs({');
    node.children.forEach((pair: Any, i: number) => {
      if (i > 0) this._emit(',');
      if (!(pair.key instanceof nodes.Symbol)) this.fail('keyword argument name expected', pair.key.lineno, pair.key.colno);
      this._emit(`${js(pair.key.value)}: `);
      this.compile(pair.value, frame);
    });
    this._emit('})');
  }

  compileInlineIf(node: Any, frame: Any): void {
    this._emit('(env.brine.truthy(');
    this.compile(node.cond, frame);
    this._emit(') ? ');
    this.compile(node.body, frame);
    this._emit(' : ');
    if (node.else_ !== null) this.compile(node.else_, frame);
    else this._emit('undefined');
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
    this._emit(`, ${node.bracket === true}, ${js(this.exprName(node.target))}))`);
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

  compileIf(node: Any, frame: Any, async?: boolean): void {
    if (async) throw new Unsupported('ifAsync is not Jinja2', node.lineno, node.colno);
    this._emit('if(env.brine.truthy(');
    this.compile(node.cond, frame);
    this._emitLine(`${this.what(node.cond)})) {`);
    this._withScopedSyntax(() => this.compile(node.body, frame));
    if (node.else_) {
      this._emitLine('}\nelse {');
      this._withScopedSyntax(() => this.compile(node.else_, frame));
    }
    this._emitLine('}');
  }

  compileSwitch(node: Any): void {
    throw new Unsupported('switch is not Jinja2', node.lineno, node.colno);
  }

  /** Jinja2 scoping: a `set` inside a loop or macro body binds in that body, never outside it. */
  compileSet(node: Any, frame: Any): void {
    const first = node.targets[0];
    if (first instanceof nodes.LookupVal) {
      // {% set ns.attr = value %}
      this.pos(node);
      this._emit('env.brine.setattr(');
      this.compile(first.target, frame);
      this._emit(`, ${js(first.val.value)}, `);
      this._compileExpression(node.value, frame);
      this._emitLine('));');
      return;
    }
    // the value first: `{% set x = x + 1 %}` inside a loop reads the outer x
    const tmp = this._tmpid();
    this._emit(`var ${tmp} = `);
    if (node.value) this._compileExpression(node.value, frame);
    else this.compile(node.body, frame);
    this._emitLine(';');
    const ids: string[] = [];
    for (const target of node.targets) {
      const name = target.value;
      const owner = frame.resolve(name, true);
      let id = owner ? owner.variables[name] : undefined;
      if (id === undefined || id === null) {
        id = this._tmpid();
        this._emitLine(`var ${id};`);
        frame.set(name, id);
      }
      ids.push(id);
    }
    if (ids.length > 1) {
      this._emit(`${tmp} = `);
      this.pos(node);
      this._emitLine(`env.brine.unpack(${tmp}, ${ids.length}));`);
    }
    node.targets.forEach((target: Any, i: number) => {
      const id = ids[i]!;
      const name = target.value;
      this._emitLine(`${id} = ${ids.length > 1 ? `${tmp}[${i}]` : tmp};`);
      this._emitLine(`frame.set(${js(name)}, ${id}, true);`);
      this._emitLine(`if(frame.topLevel) { context.setVariable(${js(name)}, ${id}); }`);
      if (name.charAt(0) !== '_') this._emitLine(`if(frame.topLevel) { context.addExport(${js(name)}, ${id}); }`);
    });
  }

  compileFor(node: Any, frame: Any): void {
    const arr = this._tmpid();
    const items = this._tmpid();
    const i = this._tmpid();
    const item = this._tmpid();
    const targets: Any[] = node.targets ?? [node.name];
    frame = frame.push(true);
    this._emitLine('frame = frame.push(true);');
    this._emit(`var ${arr} = `);
    this.pos(node);
    this._emit('env.brine.iter(');
    this._compileExpression(node.arr, frame);
    this._emitLine('));');
    const ids = targets.map(() => this._tmpid());
    const bind = (value: string): void => {
      if (targets.length === 1) this._emitLine(`var ${ids[0]} = ${value};`);
      else {
        const parts = this._tmpid();
        this._emitLine(`var ${parts} = (lineno = ${node.lineno + 1}, env.brine.unpack(${value}, ${targets.length}));`);
        ids.forEach((id, k) => {
          this._emitLine(`var ${id} = ${parts}[${k}];`);
        });
      }
      targets.forEach((t, k) => {
        this._emitLine(`frame.set(${js(t.value)}, ${ids[k]});`);
        frame.set(t.value, ids[k]);
      });
    };
    if (node.filter) {
      // Jinja2's loop filter runs before the loop: loop.index and loop.length count kept items only
      this._emitLine(`var ${items} = [];`);
      this._emitLine(`for (var ${i} = 0; ${i} < ${arr}.length; ${i}++) {`);
      bind(`${arr}[${i}]`);
      this._emit('if (env.brine.truthy(');
      this.compile(node.filter, frame);
      this._emitLine(`)) ${items}.push(${arr}[${i}]);`);
      this._emitLine('}');
    } else {
      this._emitLine(`var ${items} = ${arr};`);
    }
    this._emitLine(`for (var ${i} = 0; ${i} < ${items}.length; ${i}++) {`);
    this._emitLine(`var ${item} = ${items}[${i}];`);
    bind(item);
    this._emitLine(`frame.set("loop", env.brine.loop(${items}, ${i}));`);
    this.loopDepth++;
    this._withScopedSyntax(() => this.compile(node.body, frame));
    this.loopDepth--;
    this._emitLine('}');
    if (node.else_) {
      this._emitLine(`if (!${items}.length) {`);
      this.compile(node.else_, frame);
      this._emitLine('}');
    }
    this._emitLine('frame = frame.pop();');
  }

  /** Without `with context` an imported template still sees the render's globals (salt, grains, pillar...), as in Salt. */
  compileImport(node: Any, frame: Any): void {
    const target = node.target.value;
    const id = this._compileGetTemplate(node, frame, false, false);
    this._addScopeLevel();
    this._emitLine(`${id}.getExported(env.brine.importContext(context, ${node.withContext === true}), ${node.withContext ? 'frame' : 'null'}, ${this._makeCallback(id)}`);
    this._addScopeLevel();
    frame.set(target, id);
    if (frame.parent) this._emitLine(`frame.set(${js(target)}, ${id});`);
    else this._emitLine(`context.setVariable(${js(target)}, ${id});`);
  }

  compileFromImport(node: Any, frame: Any): void {
    const importedId = this._compileGetTemplate(node, frame, false, false);
    this._addScopeLevel();
    this._emitLine(`${importedId}.getExported(env.brine.importContext(context, ${node.withContext === true}), ${node.withContext ? 'frame' : 'null'}, ${this._makeCallback(importedId)}`);
    this._addScopeLevel();
    for (const nameNode of node.names.children) {
      const name = nameNode instanceof nodes.Pair ? nameNode.key.value : nameNode.value;
      const alias = nameNode instanceof nodes.Pair ? nameNode.value.value : name;
      const id = this._tmpid();
      this._emitLine(`if(!Object.prototype.hasOwnProperty.call(${importedId}, ${js(name)})) { cb(env.brine.importError(${js(name)}, ${node.lineno}, ${node.colno})); return; }`);
      this._emitLine(`var ${id} = ${importedId}[${js(name)}];`);
      frame.set(alias, id);
      if (frame.parent) this._emitLine(`frame.set(${js(alias)}, ${id});`);
      else this._emitLine(`context.setVariable(${js(alias)}, ${id});`);
    }
  }

  compileLoadData(node: Any, frame: Any): void {
    this.pos(node);
    this._emit(`env.brine.loadData(${js(node.kind)}, `);
    if (node.template) {
      this._emit('"template", ');
      this.compile(node.template, frame);
    } else {
      this._emit('"text", ');
      this.compile(node.body, frame);
    }
    this._emit(', context))');
  }

  compileDoStmt(node: Any, frame: Any): void {
    this._emit('(');
    this.compile(node.expr, frame);
    this._emitLine(');');
  }

  compileWithStmt(node: Any, frame: Any): void {
    const values = node.values.map((v: Any) => {
      const id = this._tmpid();
      this._emit(`var ${id} = `);
      this._compileExpression(v, frame);
      this._emitLine(';');
      return id;
    });
    frame = frame.push(true);
    this._emitLine('frame = frame.push(true);');
    node.targets.forEach((t: Any, k: number) => {
      const id = this._tmpid();
      this._emitLine(`var ${id} = ${values[k]};`);
      this._emitLine(`frame.set(${js(t.value)}, ${id});`);
      frame.set(t.value, id);
    });
    this._withScopedSyntax(() => this.compile(node.body, frame));
    this._emitLine('frame = frame.pop();');
  }
}

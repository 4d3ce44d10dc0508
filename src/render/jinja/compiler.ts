// brine's code generator for Jinja statements with Jinja2's semantics: a `set` inside a loop
// stays in the loop, `for` iterates dict keys and filters before counting, imports see Salt's
// globals, includes do not see `loop`, macros refuse extra arguments. Constructs that cannot be
// made exact are refused here, at compile time. Expressions are in compiler-expressions.ts.

import { ExpressionCompiler, js } from './compiler-expressions.js';
import { type Any, nodes, PyTuple, Unsupported } from './nunjucks-internals.js';

export type { CompilerNames } from './compiler-expressions.js';

export class BrineCompiler extends ExpressionCompiler {
  loopDepth = 0;

  compileLoopControl(node: Any): void {
    if (this.loopDepth === 0) throw new Unsupported(`${node.kind} outside of a for loop`, node.lineno, node.colno);
    this._emitLine(`${node.kind};`);
  }

  _compileMacro(node: Any, frame: Any): string {
    // Jinja2 gives a macro `varargs`/`kwargs` only when its body reads them; they arrive as two
    // hidden keyword parameters that brine.variadic fills from the extra arguments of each call
    const used = new Set<string>();
    for (const sym of node.body.findAll(nodes.Symbol)) if (sym.value === 'varargs' || sym.value === 'kwargs') used.add(sym.value);
    const names = node.args.children.flatMap((a: Any) => (a instanceof nodes.Dict ? a.children.map((p: Any) => p.key.value) : [a.value]));
    if (used.size > 0) {
      let kw = node.args.children[node.args.children.length - 1];
      if (!(kw instanceof nodes.Dict)) {
        kw = new nodes.Dict(node.lineno, node.colno);
        node.args.addChild(kw);
      }
      if (used.has('varargs')) kw.addChild(new nodes.Pair(node.lineno, node.colno, new nodes.Symbol(node.lineno, node.colno, 'varargs'), new PyTuple(node.lineno, node.colno, [])));
      if (used.has('kwargs')) kw.addChild(new nodes.Pair(node.lineno, node.colno, new nodes.Symbol(node.lineno, node.colno, 'kwargs'), new nodes.Dict(node.lineno, node.colno)));
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
    if (used.size > 0) this._emitLine(`${id} = env.brine.variadic(${id}, ${JSON.stringify(names)}, ${used.has('varargs')}, ${used.has('kwargs')});`);
    else this._emitLine(`${id}.brineParams = ${JSON.stringify(names)};`);
    return id;
  }

  /**
   * A macro is a closure in Jinja2: one defined inside a for loop reads that loop's variables
   * (openvpn-formula's `_permissions` reads `config`). nunjucks compiles every `{% macro %}` on a
   * fresh frame; inside a loop brine keeps the defining frame, as nunjucks does for `{% call %}`.
   */
  compileMacro(node: Any, frame: Any): void {
    if (this.loopDepth === 0) {
      super.compileMacro(node, frame);
      return;
    }
    const funcId = this._compileMacro(node, frame);
    const name = node.name.value;
    frame.set(name, funcId);
    this._emitLine(`frame.set(${js(name)}, ${funcId});`);
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
        this.setIds.add(id);
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

  /**
   * A loop is a JS function of the iterable and the depth, so that a `recursive` loop can call
   * itself through `loop(children)`; its output goes to a fresh buffer that the call returns.
   */
  compileFor(node: Any, frame: Any): void {
    const recur = this._tmpid();
    const arrValue = this._tmpid();
    const depth = this._tmpid();
    const saved = this._tmpid();
    const state = this._tmpid();
    this._emitLine(`var ${recur} = function(${arrValue}, ${depth}) {`);
    this._emitLine(`var ${saved} = ${this.buffer}; ${this.buffer} = "";`);
    this._emitLine(`var ${state} = env.brine.loopState(${node.recursive === true ? recur : 'null'}, ${depth});`);
    this.compileLoopBody(node, frame, arrValue, state);
    this._emitLine(`var ${arrValue} = ${this.buffer}; ${this.buffer} = ${saved};`);
    this._emitLine(`return ${arrValue};`);
    this._emitLine('};');
    this._emit(`${this.buffer} += ${recur}(`);
    this._compileExpression(node.arr, frame);
    this._emitLine(', 1);');
  }

  compileLoopBody(node: Any, frame: Any, arrValue: string, state: string): void {
    const arr = this._tmpid();
    const items = this._tmpid();
    const i = this._tmpid();
    const item = this._tmpid();
    const targets: Any[] = node.targets ?? [node.name];
    frame = frame.push(true);
    this._emitLine('frame = frame.push(true);');
    this._emit(`var ${arr} = `);
    this.pos(node);
    this._emitLine(`env.brine.iter(${arrValue}));`);
    // a target is a name or (Jinja2's nested unpacking, `for k, (a, b) in ...`) a nodes.Array of targets
    const bindTargets = (list: Any[], value: string): void => {
      const ids = list.map(() => this._tmpid());
      if (list.length === 1) this._emitLine(`var ${ids[0]} = ${value};`);
      else {
        const parts = this._tmpid();
        this._emitLine(`var ${parts} = (lineno = ${node.lineno + 1}, env.brine.unpack(${value}, ${list.length}));`);
        ids.forEach((id, k) => {
          this._emitLine(`var ${id} = ${parts}[${k}];`);
        });
      }
      list.forEach((t, k) => {
        if (t instanceof nodes.Array) {
          bindTargets(t.children, ids[k]!);
          return;
        }
        this._emitLine(`frame.set(${js(t.value)}, ${ids[k]});`);
        frame.set(t.value, ids[k]);
      });
    };
    const bind = (value: string): void => bindTargets(targets, value);
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
    this._emitLine(`frame.set("loop", env.brine.loop(${items}, ${i}, ${state}));`);
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
      // Jinja2 binds a name the template does not export to an Undefined: only a use of it fails
      this._emitLine(`var ${id} = Object.prototype.hasOwnProperty.call(${importedId}, ${js(name)}) ? ${importedId}[${js(name)}] : undefined;`);
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
    this._emit(node.withContext === true ? ', env.brine.contextVariables(context, frame)))' : ', null))');
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

// nunjucks' parser with Jinja2's grammar where the two differ: `True`/`False`/`None` literals,
// tuples (`('a',)`, `(1, 2)`), slices (`s[1:3]`), `for x in l if cond`, tuple unpacking in `set`
// and `for`, and integral float literals (`2.0`). Lookups remember whether they were written `a.b`
// or `a['b']` because Jinja2 resolves the two in a different order.
// The lexical rules (string escapes, balanced braces) are in lexer.ts.

import { type Any, lexer, nodes, ParserBase, PyFloatLit, PySlice, PyStarArgs, PyStarKwargs, PyTuple, Unsupported } from './nunjucks-internals.js';
import { balancedLexer } from './lexer.js';

const LITERAL_NAMES: Record<string, boolean | null> = { True: true, False: false, None: null, true: true, false: false, none: null };

/** nunjucks-only statements: Jinja2 has no such tag. */
const NUNJUCKS_ONLY = new Set(['verbatim', 'switch', 'ifAsync', 'asyncEach', 'asyncAll']);

export class BrineParser extends ParserBase {
  parseStatement(): Any {
    const tok = this.peekToken();
    if (tok && tok.type === lexer.TOKEN_SYMBOL && NUNJUCKS_ONLY.has(tok.value)) {
      throw new Unsupported(`{% ${tok.value} %} is a nunjucks statement that Jinja2 does not have`, tok.lineno, tok.colno);
    }
    return super.parseStatement();
  }

  /**
   * Jinja2's `{% raw %}`: the text up to the first `{% endraw %}` (raw blocks do not nest), with
   * whitespace control on both tags (`{%- raw -%}`, `{%- endraw -%}`).
   */
  parseRaw(): Any {
    const begun = this.advanceAfterBlockEnd();
    const rest: string = this.tokens.currentStr();
    const end = /\{%([-+]?)\s*endraw\s*([-+]?)%\}/.exec(rest);
    if (!end) throw this.error('unexpected end of template: the raw block is never closed with {% endraw %}', begun.lineno, begun.colno);
    let body = rest.slice(0, end.index);
    if (this.dropLeadingWhitespace) body = body.replace(/^\s*/, '');
    this.dropLeadingWhitespace = false;
    if (end[1] === '-') body = body.replace(/\s*$/, '');
    this.tokens.forwardN(end.index + end[0].length);
    if (end[2] === '-') this.dropLeadingWhitespace = true;
    return new nodes.Output(begun.lineno, begun.colno, [new nodes.TemplateData(begun.lineno, begun.colno, body)]);
  }

  /**
   * Jinja2's include: `{% include name [ignore missing] [with context | without context] %}`.
   * `with context` is what an include always does; `without context` (only the globals) is not
   * something nunjucks can render, so it is refused rather than rendered with the context.
   */
  parseInclude(): Any {
    const tag = this.peekToken();
    if (!this.skipSymbol('include')) this.fail('parseInclude: expected include', tag.lineno, tag.colno);
    const node = new nodes.Include(tag.lineno, tag.colno);
    node.template = this.parseExpression();
    if (this.skipSymbol('ignore') && this.skipSymbol('missing')) node.ignoreMissing = true;
    const word = this.peekToken();
    if (this.skipSymbol('with')) {
      if (!this.skipSymbol('context')) this.fail("expected 'context' after 'with' in include statement", word.lineno, word.colno);
    } else if (this.skipSymbol('without')) {
      throw new Unsupported('{% include ... without context %} (an include that sees only the globals) is not supported by brine', word.lineno, word.colno);
    }
    this.advanceAfterBlockEnd(tag.value);
    return node;
  }

  /** A macro's parameter list is a definition: Jinja2 takes no trailing comma and no `*`/`**` there. */
  parseMacro(): Any {
    this.inDefinition = true;
    try {
      return super.parseMacro();
    } finally {
      this.inDefinition = false;
    }
  }

  inDefinition = false;

  /**
   * Call arguments as Jinja2 reads them (parser.py parse_call_args): a trailing comma before `)`,
   * `*args` after the positional arguments and `**kwargs` last. Definitions (macro parameters,
   * call-block caller parameters) keep nunjucks' stricter reading, as Jinja2 does.
   */
  parseSignature(tolerant?: boolean, noParens?: boolean): Any {
    const definition = this.inDefinition || tolerant === true;
    this.inDefinition = false;
    if (noParens || definition) return super.parseSignature(tolerant, noParens);
    const open = this.peekToken();
    if (open.type !== lexer.TOKEN_LEFT_PAREN) this.fail('expected arguments', open.lineno, open.colno);
    this.nextToken();
    const args = new nodes.NodeList(open.lineno, open.colno);
    const kwargs = new nodes.KeywordArgs(open.lineno, open.colno);
    let star = false;
    let starstar = false;
    let first = true;
    for (;;) {
      let tok = this.peekToken();
      if (tok.type === lexer.TOKEN_RIGHT_PAREN) break;
      if (!first) {
        if (!this.skip(lexer.TOKEN_COMMA)) this.fail('expected comma after a call argument', tok.lineno, tok.colno);
        tok = this.peekToken();
        if (tok.type === lexer.TOKEN_RIGHT_PAREN) break;
      }
      first = false;
      if (tok.type === lexer.TOKEN_OPERATOR && tok.value === '*') {
        if (star || starstar) this.fail('invalid syntax for function call expression', tok.lineno, tok.colno);
        this.nextToken();
        args.addChild(new PyStarArgs(tok.lineno, tok.colno, this.parseExpression()));
        star = true;
        continue;
      }
      if (tok.type === lexer.TOKEN_OPERATOR && tok.value === '**') {
        if (starstar) this.fail('invalid syntax for function call expression', tok.lineno, tok.colno);
        this.nextToken();
        kwargs.addChild(new PyStarKwargs(tok.lineno, tok.colno, this.parseExpression()));
        starstar = true;
        continue;
      }
      const arg = this.parseExpression();
      if (this.skipValue(lexer.TOKEN_OPERATOR, '=')) {
        if (starstar) this.fail('invalid syntax for function call expression', tok.lineno, tok.colno);
        kwargs.addChild(new nodes.Pair(arg.lineno, arg.colno, arg, this.parseExpression()));
      } else {
        if (star || starstar || kwargs.children.length > 0) this.fail('invalid syntax for function call expression', tok.lineno, tok.colno);
        args.addChild(arg);
      }
    }
    this.nextToken();
    if (kwargs.children.length) args.addChild(kwargs);
    return args;
  }

  /** Jinja2's conditional expression: `a if x else b if y else c` chains; without `else` it is undefined. */
  parseInlineIf(): Any {
    let node = this.parseOr();
    while (this.skipSymbol('if')) {
      const cond = this.parseOr();
      const else_ = this.skipSymbol('else') ? this.parseInlineIf() : null;
      const body = node;
      node = new nodes.InlineIf(body.lineno, body.colno);
      node.body = body;
      node.cond = cond;
      node.else_ = else_;
    }
    return node;
  }

  parsePrimary(noPostfix?: boolean): Any {
    const tok = this.peekToken();
    if (tok && tok.type === lexer.TOKEN_SYMBOL && Object.hasOwn(LITERAL_NAMES, tok.value)) {
      this.nextToken();
      const node = new nodes.Literal(tok.lineno, tok.colno, LITERAL_NAMES[tok.value]);
      return noPostfix ? node : this.parsePostfix(node);
    }
    if (tok && tok.type === lexer.TOKEN_SYMBOL && /^\d[\d_]*(\.\d*)?[eE]\d+$/.test(tok.value)) {
      // nunjucks lexes `1e3` as a name; Jinja2 reads a float
      this.nextToken();
      const node = new PyFloatLit(tok.lineno, tok.colno, Number(tok.value.replace(/_/g, '')));
      return noPostfix ? node : this.parsePostfix(node);
    }
    if (tok && tok.type === lexer.TOKEN_STRING) {
      // Jinja2 (like Python) joins adjacent string literals: `'a' 'b'` is 'ab'
      this.nextToken();
      let value = tok.value as string;
      while (this.peekToken()?.type === lexer.TOKEN_STRING) value += this.nextToken().value;
      const node = new nodes.Literal(tok.lineno, tok.colno, value);
      return noPostfix ? node : this.parsePostfix(node);
    }
    if (tok && tok.type === lexer.TOKEN_FLOAT && Number.isInteger(Number.parseFloat(tok.value))) {
      this.nextToken();
      const node = new PyFloatLit(tok.lineno, tok.colno, Number.parseFloat(tok.value));
      return noPostfix ? node : this.parsePostfix(node);
    }
    return super.parsePrimary(noPostfix);
  }

  parsePostfix(node: Any): Any {
    let tok = this.peekToken();
    while (tok) {
      if (tok.type === lexer.TOKEN_LEFT_PAREN) {
        node = new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature());
      } else if (tok.type === lexer.TOKEN_LEFT_BRACKET) {
        this.nextToken();
        const val = this.parseSubscript();
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, val);
        node.bracket = true;
      } else if (tok.type === lexer.TOKEN_OPERATOR && tok.value === '.') {
        this.nextToken();
        const val = this.nextToken();
        if (val.type !== lexer.TOKEN_SYMBOL && val.type !== lexer.TOKEN_INT) {
          this.fail(`expected name as lookup value, got ${val.value}`, val.lineno, val.colno);
        }
        const key = val.type === lexer.TOKEN_INT ? Number(val.value) : val.value;
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, new nodes.Literal(val.lineno, val.colno, key));
        node.bracket = val.type === lexer.TOKEN_INT;
      } else {
        break;
      }
      tok = this.peekToken();
    }
    return node;
  }

  /** After `[`: an index expression or a slice `a:b:c`, up to and including `]`. */
  parseSubscript(): Any {
    const start = this.peekToken();
    const parts: Any[] = [null];
    let colons = 0;
    for (;;) {
      const t = this.peekToken();
      if (t.type === lexer.TOKEN_RIGHT_BRACKET) {
        this.nextToken();
        break;
      }
      if (t.type === lexer.TOKEN_COLON) {
        this.nextToken();
        colons++;
        if (colons > 2) this.fail('invalid slice', t.lineno, t.colno);
        parts.push(null);
        continue;
      }
      if (parts[parts.length - 1] !== null) this.fail('expected ] or : in subscript', t.lineno, t.colno);
      parts[parts.length - 1] = this.parseExpression();
      if (this.peekToken().type === lexer.TOKEN_COMMA) throw new Unsupported('a tuple subscript (a[1, 2]) is not supported', t.lineno, t.colno);
    }
    if (colons === 0) {
      if (parts[0] === null) this.fail('empty subscript', start.lineno, start.colno);
      return parts[0];
    }
    return new PySlice(start.lineno, start.colno, parts[0], parts[1] ?? null, parts[2] ?? null);
  }

  parseAggregate(): Any {
    const tok = this.peekToken();
    if (tok.type !== lexer.TOKEN_LEFT_PAREN) return this.parseListOrDict();
    this.nextToken();
    // a parenthesised expression, or a tuple when a comma appears (`('a',)`, `()`)
    const items: Any[] = [];
    let comma = false;
    for (;;) {
      const t = this.peekToken();
      if (t.type === lexer.TOKEN_RIGHT_PAREN) {
        this.nextToken();
        break;
      }
      if (items.length > 0 && !this.skip(lexer.TOKEN_COMMA)) this.fail('expected , or ) in parentheses', t.lineno, t.colno);
      if (items.length > 0) comma = true;
      if (this.peekToken().type === lexer.TOKEN_RIGHT_PAREN) continue;
      items.push(this.parseExpression());
    }
    if (items.length === 1 && !comma) {
      const group = new nodes.Group(tok.lineno, tok.colno);
      group.addChild(items[0]);
      return group;
    }
    return new PyTuple(tok.lineno, tok.colno, items);
  }

  /** `[...]` and `{...}` as nunjucks parses them, except that dict keys are full expressions (Jinja2). */
  parseListOrDict(): Any {
    const tok = this.nextToken();
    let node: Any;
    if (tok.type === lexer.TOKEN_LEFT_BRACKET) node = new nodes.Array(tok.lineno, tok.colno);
    else if (tok.type === lexer.TOKEN_LEFT_CURLY) node = new nodes.Dict(tok.lineno, tok.colno);
    else return null;
    const close = tok.type === lexer.TOKEN_LEFT_BRACKET ? lexer.TOKEN_RIGHT_BRACKET : lexer.TOKEN_RIGHT_CURLY;
    for (;;) {
      const t = this.peekToken();
      if (t.type === close) {
        this.nextToken();
        break;
      }
      if (node.children.length > 0 && !this.skip(lexer.TOKEN_COMMA)) this.fail(`expected token ',', got '${describeToken(t)}'`, t.lineno, t.colno);
      if (this.peekToken().type === close) continue;
      if (tok.type === lexer.TOKEN_LEFT_CURLY) {
        const key = this.parseExpression();
        const colon = this.peekToken();
        if (!this.skip(lexer.TOKEN_COLON)) this.fail(`expected token ':', got '${describeToken(colon)}'`, colon.lineno, colon.colno);
        const value = this.parseExpression();
        node.addChild(new nodes.Pair(key.lineno, key.colno, key, value));
      } else {
        node.addChild(this.parseExpression());
      }
    }
    return node;
  }

  /**
   * One or more assignment targets: `a`, `a, b`, `(a, b)`; as in Jinja2 a target may itself be a
   * parenthesised tuple (`for k, (x, y) in d.items()`), kept as a nodes.Array of its targets.
   */
  parseTargets(): Any[] {
    const out: Any[] = [];
    do {
      const t = this.peekToken();
      if (t?.type === lexer.TOKEN_LEFT_PAREN) {
        this.nextToken();
        const nested = new nodes.Array(t.lineno, t.colno);
        for (const child of this.parseTargets()) nested.addChild(child);
        if (!this.skip(lexer.TOKEN_RIGHT_PAREN)) this.fail('expected ) after loop variables', t.lineno, t.colno);
        out.push(nested);
        continue;
      }
      this.nextToken();
      if (!t || t.type !== lexer.TOKEN_SYMBOL) this.fail('expected a variable name', t?.lineno, t?.colno);
      out.push(new nodes.Symbol(t.lineno, t.colno, t.value));
    } while (this.skip(lexer.TOKEN_COMMA) && [lexer.TOKEN_SYMBOL, lexer.TOKEN_LEFT_PAREN].includes(this.peekToken().type));
    // `for (a, b) in` is `for a, b in`
    return out.length === 1 && out[0] instanceof nodes.Array ? out[0].children : out;
  }

  /** An expression that may be an unparenthesised tuple (`1, 2`), as on the right of `set` or `in`. */
  parseTupleExpr(parseItem: () => Any): Any {
    const first = parseItem();
    if (this.peekToken().type !== lexer.TOKEN_COMMA) return first;
    const items = [first];
    while (this.skip(lexer.TOKEN_COMMA)) {
      const t = this.peekToken();
      if (t.type === lexer.TOKEN_BLOCK_END || (t.type === lexer.TOKEN_SYMBOL && (t.value === 'if' || t.value === 'recursive'))) break;
      items.push(parseItem());
    }
    return new PyTuple(first.lineno, first.colno, items);
  }

  /**
   * Jinja2 applies filters and tests at the operand level (`x + 1 is odd` is `x + (1 is odd)`),
   * in any order (`x|length is odd`, `x is defined|string`).
   */
  parseUnary(noFilters?: boolean): Any {
    let node = super.parseUnary(noFilters);
    if (noFilters) return node;
    for (;;) {
      if (this.peekToken().type === lexer.TOKEN_PIPE) node = this.parseFilter(node);
      else if (this.peekToken().type === lexer.TOKEN_SYMBOL && this.peekToken().value === 'is') node = this.parseTest(node);
      else return node;
    }
  }

  /** Jinja2's tests: `x is name`, `x is name(args)` and `x is name arg` (one argument without parentheses). */
  parseTest(node: Any): Any {
    this.skipSymbol('is');
    const not = this.skipSymbol('not');
    const nameTok = this.nextToken();
    let test: Any;
    if (nameTok.type === lexer.TOKEN_SYMBOL) test = new nodes.Symbol(nameTok.lineno, nameTok.colno, nameTok.value);
    else if (nameTok.type === lexer.TOKEN_NONE || nameTok.type === lexer.TOKEN_BOOLEAN) test = new nodes.Symbol(nameTok.lineno, nameTok.colno, nameTok.value);
    else if (nameTok.type === lexer.TOKEN_OPERATOR && ['==', '!=', '<', '<=', '>', '>='].includes(nameTok.value)) test = new nodes.Symbol(nameTok.lineno, nameTok.colno, nameTok.value);
    else this.fail('expected a test name after "is"', nameTok.lineno, nameTok.colno);
    const next = this.peekToken();
    const argStarts = [lexer.TOKEN_STRING, lexer.TOKEN_INT, lexer.TOKEN_FLOAT, lexer.TOKEN_LEFT_BRACKET, lexer.TOKEN_LEFT_CURLY, lexer.TOKEN_BOOLEAN, lexer.TOKEN_NONE];
    if (next.type === lexer.TOKEN_LEFT_PAREN) {
      test = new nodes.FunCall(next.lineno, next.colno, test, this.parseSignature());
    } else if (argStarts.includes(next.type) || (next.type === lexer.TOKEN_SYMBOL && !['else', 'or', 'and', 'if', 'in', 'not'].includes(next.value))) {
      const args = new nodes.NodeList(next.lineno, next.colno);
      args.addChild(this.parsePrimary());
      test = new nodes.FunCall(next.lineno, next.colno, test, args);
    }
    let out: Any = new nodes.Is(node.lineno, node.colno, node, test);
    if (not) out = new nodes.Not(node.lineno, node.colno, out);
    return out;
  }

  /** Jinja2: `+` and `-` share one left-associative level (nunjucks nests them). */
  parseAdd(): Any {
    let node = this.parseMul();
    for (;;) {
      const tok = this.peekToken();
      if (!tok || tok.type !== lexer.TOKEN_OPERATOR || (tok.value !== '+' && tok.value !== '-')) return node;
      this.nextToken();
      const Cls = tok.value === '+' ? nodes.Add : nodes.Sub;
      node = new Cls(node.lineno, node.colno, node, this.parseMul());
    }
  }

  /** Jinja2: `*`, `/`, `//` and `%` share one left-associative level (`a * b % c` is `(a * b) % c`). */
  parseMul(): Any {
    const ops: Record<string, Any> = { '*': nodes.Mul, '/': nodes.Div, '//': nodes.FloorDiv, '%': nodes.Mod };
    let node = this.parsePow();
    for (;;) {
      const tok = this.peekToken();
      if (!tok || tok.type !== lexer.TOKEN_OPERATOR || !Object.hasOwn(ops, tok.value)) return node;
      this.nextToken();
      node = new ops[tok.value](node.lineno, node.colno, node, this.parsePow());
    }
  }

  parseFor(): Any {
    const forTok = this.peekToken();
    if (!this.skipSymbol('for')) this.fail('expected for', forTok.lineno, forTok.colno);
    const node = new nodes.For(forTok.lineno, forTok.colno);
    node.targets = this.parseTargets();
    node.name = node.targets[0];
    if (!this.skipSymbol('in')) this.fail('expected "in" keyword for loop', forTok.lineno, forTok.colno);
    // Jinja2: the iterable is parsed without a conditional expression; `if` starts the loop filter
    node.arr = this.parseTupleExpr(() => this.parseOr());
    node.filter = this.skipSymbol('if') ? this.parseExpression() : null;
    node.recursive = this.skipSymbol('recursive');
    this.advanceAfterBlockEnd(forTok.value);
    node.body = this.parseUntilBlocks('endfor', 'else');
    if (this.skipSymbol('else')) {
      this.advanceAfterBlockEnd('else');
      node.else_ = this.parseUntilBlocks('endfor');
    }
    this.advanceAfterBlockEnd();
    return node;
  }

  parseSet(): Any {
    const tag = this.peekToken();
    if (!this.skipSymbol('set')) this.fail('expected set', tag.lineno, tag.colno);
    const node = new nodes.Set(tag.lineno, tag.colno, []);
    const first = this.parsePrimary();
    node.targets.push(first);
    if (first instanceof nodes.LookupVal) {
      if (first.bracket || !(first.target instanceof nodes.Symbol)) throw new Unsupported('set can assign only to a name or to namespace.attribute', tag.lineno, tag.colno);
    } else if (!(first instanceof nodes.Symbol)) {
      this.fail('expected a variable name after set', tag.lineno, tag.colno);
    }
    while (this.skip(lexer.TOKEN_COMMA)) node.targets.push(this.parsePrimary());
    if (!this.skipValue(lexer.TOKEN_OPERATOR, '=')) {
      if (!this.skip(lexer.TOKEN_BLOCK_END)) this.fail('expected = or block end in set tag', tag.lineno, tag.colno);
      if (node.targets.length > 1) this.fail('a block set takes one name', tag.lineno, tag.colno);
      node.body = new nodes.Capture(tag.lineno, tag.colno, this.parseUntilBlocks('endset'));
      node.value = null;
      this.advanceAfterBlockEnd();
    } else {
      node.value = this.parseTupleExpr(() => this.parseExpression());
      this.advanceAfterBlockEnd(tag.value);
    }
    return node;
  }
}

/** Jinja2's describe_token: a name is itself, an operator its text, a literal or an end its kind. */
function describeToken(tok: Any): string {
  if (!tok) return 'end of template';
  switch (tok.type) {
    case lexer.TOKEN_STRING:
      return 'string';
    case lexer.TOKEN_INT:
      return 'integer';
    case lexer.TOKEN_FLOAT:
      return 'float';
    case lexer.TOKEN_BLOCK_END:
      return 'end of statement block';
    case lexer.TOKEN_VARIABLE_END:
      return 'end of print statement';
    default:
      return String(tok.value);
  }
}

/** Parses a template source into nunjucks' AST with brine's grammar and tag extensions. */
export function parseTemplate(src: string, extensions: Any[]): Any {
  const p = new (BrineParser as Any)(balancedLexer(src));
  p.extensions = extensions;
  return p.parseAsRoot();
}

// The statements Salt adds to Jinja: `{% do %}` (jinja2.ext.do), Salt's SerializerExtension
// (`import_yaml`/`import_json`/`import_text` and `load_yaml`/`load_json`/`load_text` blocks), and
// Jinja2's `{% with %}`. Each parses into nodes that BrineCompiler compiles.

import { type Any, DoStmt, LoadData, LoopControl, lexer, nodes, WithStmt } from './nunjucks-internals.js';

const doTag = {
  tags: ['do'],
  parse(parser: Any): Any {
    const tok = parser.nextToken();
    const expr = parser.parseExpression();
    parser.advanceAfterBlockEnd(tok.value);
    return new DoStmt(tok.lineno, tok.colno, expr);
  },
};

const importTag = {
  tags: ['import_yaml', 'import_json', 'import_text'],
  parse(parser: Any): Any {
    const tok = parser.nextToken();
    const kind = String(tok.value).slice('import_'.length);
    const template = parser.parseExpression();
    if (!parser.skipSymbol('as')) parser.fail(`expected "as" after ${tok.value} <file>`, tok.lineno, tok.colno);
    const target = parser.parsePrimary();
    if (!(target instanceof nodes.Symbol)) parser.fail('expected a variable name after "as"', tok.lineno, tok.colno);
    // Salt parses these with Jinja2's parse_import, so `with context`/`without context` may follow
    const withContext = parser.skipSymbol('with');
    if ((withContext || parser.skipSymbol('without')) && !parser.skipSymbol('context')) parser.fail('expected "context" after with/without', tok.lineno, tok.colno);
    parser.advanceAfterBlockEnd(tok.value);
    const load = new LoadData(tok.lineno, tok.colno, kind, template, null);
    load.withContext = withContext === true;
    return new nodes.Set(tok.lineno, tok.colno, [target], load);
  },
};

const loadTag = {
  tags: ['load_yaml', 'load_json', 'load_text'],
  parse(parser: Any): Any {
    const tok = parser.nextToken();
    const kind = String(tok.value).slice('load_'.length);
    if (!parser.skipSymbol('as')) parser.fail(`expected "as" after ${tok.value}`, tok.lineno, tok.colno);
    const target = parser.parsePrimary();
    if (!(target instanceof nodes.Symbol)) parser.fail('expected a variable name after "as"', tok.lineno, tok.colno);
    parser.advanceAfterBlockEnd(tok.value);
    const body = new nodes.Capture(tok.lineno, tok.colno, parser.parseUntilBlocks('endload'));
    parser.advanceAfterBlockEnd();
    return new nodes.Set(tok.lineno, tok.colno, [target], new LoadData(tok.lineno, tok.colno, kind, null, body));
  },
};

const withTag = {
  tags: ['with'],
  parse(parser: Any): Any {
    const tok = parser.nextToken();
    const targets: Any[] = [];
    const values: Any[] = [];
    while (parser.peekToken().type !== lexer.TOKEN_BLOCK_END) {
      if (targets.length > 0 && !parser.skip(lexer.TOKEN_COMMA)) parser.fail('expected , in with', tok.lineno, tok.colno);
      const t = parser.parsePrimary(true);
      if (!(t instanceof nodes.Symbol)) parser.fail('expected a name in with', tok.lineno, tok.colno);
      if (!parser.skipValue(lexer.TOKEN_OPERATOR, '=')) parser.fail('expected = in with', tok.lineno, tok.colno);
      targets.push(t);
      values.push(parser.parseExpression());
    }
    parser.advanceAfterBlockEnd(tok.value);
    const body = parser.parseUntilBlocks('endwith');
    parser.advanceAfterBlockEnd();
    return new WithStmt(tok.lineno, tok.colno, targets, values, body);
  },
};

/** jinja2.ext.loopcontrols, which Salt enables. */
const loopTags = {
  tags: ['break', 'continue'],
  parse(parser: Any): Any {
    const tok = parser.nextToken();
    parser.advanceAfterBlockEnd(tok.value);
    return new LoopControl(tok.lineno, tok.colno, tok.value);
  },
};

export const EXTENSIONS: Any[] = [doTag, importTag, loadTag, withTag, loopTags];

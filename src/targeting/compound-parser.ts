// Parses Salt's compound target grammar into a tree: words split on whitespace, `and`, `or`,
// `not`, parentheses, and terms that are either `X@pattern` (an engine) or a bare glob.
// Precedence is Python's, which Salt evaluates: not > and > or. Errors name the word and position.

import { BrineError, errorMessage } from '../util/errors.js';
import { checkGrainExpr, parseIpTarget } from './grain-matchers.js';
import { compilePcre } from './id-matchers.js';

export type Engine = 'glob' | 'G' | 'P' | 'I' | 'J' | 'L' | 'E' | 'S' | 'N';

export interface Word {
  text: string;
  /** 1-based character position in the expression. */
  pos: number;
}

export type CompoundNode =
  | { kind: 'term'; engine: Engine; pattern: string; delimiter: string | undefined; word: Word }
  | { kind: 'not'; operand: CompoundNode }
  | { kind: 'and' | 'or'; left: CompoundNode; right: CompoundNode };

const OPERATORS = new Set(['and', 'or', 'not', '(', ')']);
// Salt's TARGET_REX: an engine letter, an optional one-character delimiter (G, P, I, J only), `@`
const TARGET_REX = /^(?:([GPIJLNSER])((?<=[GPIJ]).)?@)?(.+)$/su;
const UNSUPPORTED = new Map([['R', 'range (R@) targeting is not supported by brine']]);

export function splitWords(expr: string): Word[] {
  return [...expr.matchAll(/\S+/g)].map((m) => ({ text: m[0], pos: (m.index ?? 0) + 1 }));
}

class Parser {
  private i = 0;

  constructor(
    private readonly expr: string,
    private readonly words: readonly Word[],
  ) {}

  fail(word: Word | undefined, what: string): never {
    const where = word ? `at position ${word.pos} (${JSON.stringify(word.text)})` : this.words.length === 0 ? '' : 'at the end';
    throw new BrineError('TARGET_INVALID', `compound target ${JSON.stringify(this.expr)}: ${where}${where ? ': ' : ''}${what}`, {
      details: word ? { position: word.pos, token: word.text } : { position: this.expr.length + 1 },
    });
  }

  parse(): CompoundNode {
    if (this.words.length === 0) this.fail(undefined, 'the expression is empty');
    const node = this.orExpr();
    const rest = this.peek();
    if (rest) {
      if (rest.text === ')') this.fail(rest, "')' has no matching '('");
      this.fail(rest, `expected 'and', 'or' or the end after ${JSON.stringify(this.words[this.i - 1]!.text)}`);
    }
    return node;
  }

  private peek(): Word | undefined {
    return this.words[this.i];
  }

  private orExpr(): CompoundNode {
    let left = this.andExpr();
    while (this.peek()?.text === 'or') {
      this.i++;
      left = { kind: 'or', left, right: this.andExpr() };
    }
    return left;
  }

  private andExpr(): CompoundNode {
    let left = this.unary();
    for (;;) {
      const w = this.peek()?.text;
      if (w === 'and') this.i++;
      else if (w !== 'not') break; // Salt reads `a not b` as `a and not b`
      left = { kind: 'and', left, right: this.unary() };
    }
    return left;
  }

  private unary(): CompoundNode {
    if (this.peek()?.text !== 'not') return this.primary();
    const not = this.words[this.i++]!;
    if (this.peek()?.text === 'not') this.fail(this.peek(), "'not not' cannot be evaluated; drop both");
    if (!this.peek()) this.fail(undefined, `${JSON.stringify(not.text)} needs a target or '(' after it`);
    return { kind: 'not', operand: this.primary() };
  }

  private primary(): CompoundNode {
    const word = this.peek();
    const prev = this.words[this.i - 1];
    if (!word) this.fail(undefined, `the expression ends after ${JSON.stringify(prev?.text ?? '')}; a target is missing`);
    if (word.text === 'and' || word.text === 'or') {
      if (!prev) this.fail(word, `an expression cannot begin with ${JSON.stringify(word.text)}`);
      if (prev.text === '(') this.fail(word, `${JSON.stringify(word.text)} cannot follow '('`);
      this.fail(word, `${JSON.stringify(word.text)} cannot follow ${JSON.stringify(prev.text)}; a target is missing between them`);
    }
    if (word.text === ')') this.fail(word, prev?.text === '(' ? "'()' is empty" : "')' has no matching '('");
    this.i++;
    if (word.text === '(') {
      const inner = this.orExpr();
      const close = this.peek();
      if (close?.text !== ')') {
        if (!close) this.fail(word, "'(' is never closed; add ')'");
        this.fail(close, `expected 'and', 'or' or ')' after ${JSON.stringify(this.words[this.i - 1]!.text)}`);
      }
      this.i++;
      return inner;
    }
    return this.term(word);
  }

  private term(word: Word): CompoundNode {
    const m = TARGET_REX.exec(word.text);
    const letter = m?.[1];
    const pattern = m?.[3] ?? word.text;
    const delimiter = m?.[2];
    if (letter === undefined) return { kind: 'term', engine: 'glob', pattern: word.text, delimiter: undefined, word };
    const unsupported = UNSUPPORTED.get(letter);
    if (unsupported) this.fail(word, unsupported);
    const engine = letter as Engine;
    // check each pattern now, so a bad one is reported with its position
    try {
      if (engine === 'G' || engine === 'P') checkGrainExpr(pattern, delimiter ?? ':', engine === 'P' ? 'pcre' : 'glob', `${letter}@`);
      else if (engine === 'I' || engine === 'J') checkGrainExpr(pattern, delimiter ?? ':', engine === 'J' ? 'pcre' : 'glob', `${letter}@`, 'pillar key');
      else if (engine === 'E') compilePcre(pattern, 'E@');
      else if (engine === 'S') parseIpTarget(pattern, 'S@');
    } catch (err) {
      this.fail(word, errorMessage(err));
    }
    return { kind: 'term', engine, pattern, delimiter, word };
  }
}

/** Parses a compound expression (a string, or Salt's list of words). Throws TARGET_INVALID. */
export function parseCompound(expr: string | readonly string[]): CompoundNode {
  const text = typeof expr === 'string' ? expr : expr.join(' ');
  return new Parser(text, splitWords(text)).parse();
}

export function isOperator(word: string): boolean {
  return OPERATORS.has(word);
}

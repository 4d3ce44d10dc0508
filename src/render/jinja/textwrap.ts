// Python's textwrap.wrap as Jinja2's `wordwrap` filter calls it (expand_tabs and
// replace_whitespace off, drop_whitespace on): the same chunking regular expressions and the
// same line-filling loop as CPython's Lib/textwrap.py, so a wrapped line breaks where Salt's does.

import { PyError } from './py-values.js';

const WS = '[\\t\\n\\x0b\\x0c\\r ]';
const NWS = '[^\\t\\n\\x0b\\x0c\\r ]';
// Python's \w, and its letter [^\d\W] (word characters but digits: underscore included)
const WORD = '[\\p{L}\\p{M}\\p{N}_]';
const WORD_PUNCT = '[\\p{L}\\p{M}\\p{N}_!"\'&.,?]';
const LETTER = '[\\p{L}\\p{M}_]';

// TextWrapper.wordsep_re: whitespace, an em-dash between words, or a word (split after its hyphens)
const WORDSEP = new RegExp(
  `(${WS}+|(?<=${WORD_PUNCT})-{2,}(?=${WORD})|${NWS}+?(?:-(?:(?<=${LETTER}{2}-)|(?<=${LETTER}-${LETTER}-))(?=${LETTER}-?${LETTER})|(?=${WS}|$)|(?<=${WORD_PUNCT})(?=-{2,}${WORD})))`,
  'u',
);
// TextWrapper.wordsep_simple_re
const WORDSEP_SIMPLE = new RegExp(`(${WS}+)`, 'u');

// Python's str.strip() == '' : only whitespace (any Unicode whitespace)
const blank = (s: string): boolean => s.trim() === '' && !/[\u200b\ufeff]/.test(s);
// lengths in code points, as Python counts them
const len = (s: string): number => [...s].length;

export interface WrapOptions {
  width: number;
  breakLongWords: boolean;
  breakOnHyphens: boolean;
}

function split(text: string, breakOnHyphens: boolean): string[] {
  return text.split(breakOnHyphens ? WORDSEP : WORDSEP_SIMPLE).filter((c) => c !== '');
}

function handleLongWord(chunks: string[], line: string[], curLen: number, width: number, o: WrapOptions): void {
  const spaceLeft = width < 1 ? 1 : width - curLen;
  if (o.breakLongWords) {
    const chunk = [...chunks[chunks.length - 1]!];
    let end = spaceLeft;
    if (o.breakOnHyphens && chunk.length > spaceLeft) {
      const hyphen = chunk.slice(0, spaceLeft).lastIndexOf('-');
      if (hyphen > 0 && chunk.slice(0, hyphen).some((c) => c !== '-')) end = hyphen + 1;
    }
    line.push(chunk.slice(0, end).join(''));
    chunks[chunks.length - 1] = chunk.slice(end).join('');
  } else if (line.length === 0) {
    line.push(chunks.pop()!);
  }
}

/** textwrap.wrap(text, width, break_long_words=..., break_on_hyphens=..., expand_tabs=False, replace_whitespace=False). */
export function wrap(text: string, o: WrapOptions): string[] {
  if (o.width <= 0) throw new PyError(`ValueError: invalid width ${o.width} (must be > 0)`);
  const chunks = split(text, o.breakOnHyphens).reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const line: string[] = [];
    let curLen = 0;
    if (blank(chunks[chunks.length - 1]!) && lines.length > 0) chunks.pop();
    while (chunks.length > 0) {
      const l = len(chunks[chunks.length - 1]!);
      if (curLen + l > o.width) break;
      line.push(chunks.pop()!);
      curLen += l;
    }
    if (chunks.length > 0 && len(chunks[chunks.length - 1]!) > o.width) {
      handleLongWord(chunks, line, curLen, o.width, o);
      curLen = line.reduce((n, c) => n + len(c), 0);
    }
    if (line.length > 0 && blank(line[line.length - 1]!)) {
      curLen -= len(line[line.length - 1]!);
      line.pop();
    }
    if (line.length > 0) lines.push(line.join(''));
  }
  return lines;
}

// Splits a command string into argv the way a POSIX shell tokenizes words (quotes and
// backslashes), without any expansion: no variables, globs, pipes, redirections or `;`.

import { BrineError } from '../util/errors.js';

const SPACE = new Set([' ', '\t', '\n', '\r']);
// Inside double quotes a backslash escapes only these (POSIX 2.2.3).
const DQ_ESCAPABLE = new Set(['$', '`', '"', '\\', '\n']);

/** `a "b c" 'd;e' f\ g` → ['a', 'b c', 'd;e', 'f g']. Throws BAD_ARGUMENTS on an open quote. */
export function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word at all
  let i = 0;
  const fail = (what: string): never => {
    throw new BrineError('BAD_ARGUMENTS', `the command has ${what}; close it, or quote it differently`);
  };

  while (i < text.length) {
    const c = text[i]!;
    if (SPACE.has(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) fail('a backslash at the very end');
      const next = text[i + 1]!;
      if (next !== '\n') {
        word += next;
        inWord = true;
      } // backslash-newline is a line continuation and disappears
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) fail('an unterminated single quote');
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= text.length) fail('an unterminated double quote');
        const d = text[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < text.length && DQ_ESCAPABLE.has(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

// Python's shlex.split (POSIX mode) for the few places Salt splits a caller's string into
// arguments: quotes group, backslashes escape outside single quotes, whitespace separates.

export class ShlexError extends Error {}

export function shlexSplit(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      // inside double quotes a backslash escapes only these, as in POSIX shells
      else if (c === '\\' && i + 1 < text.length && '\\"$`\n'.includes(text[i + 1] as string)) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new ShlexError('No escaped character');
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new ShlexError('No closing quotation');
  if (inWord) out.push(word);
  return out;
}

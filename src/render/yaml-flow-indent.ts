// PyYAML does not check indentation inside a flow collection (`[...]`, `{...}`): a flow sequence
// that Salt's `yaml` filter folded at 80 columns continues on lines indented less than the key it
// belongs to, and Salt loads it. The yaml package refuses that (BAD_INDENT). This re-indents such
// continuation lines past the column where their flow collection opened, which changes no value:
// YAML folds a line break inside a flow collection (and its leading spaces) into one space. Line
// numbers stay as they were, so errors still point at the rendered line.

/**
 * The text with every line that continues an open flow collection indented past the column of
 * that collection's opening bracket; undefined when no line needed it.
 */
export function indentFlowContinuations(text: string): string | undefined {
  const lines = text.split('\n');
  let depth = 0;
  let openCol = 0;
  let quote: '"' | "'" | undefined;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    if (depth > 0) {
      const indent = line.length - line.trimStart().length;
      if (indent <= openCol && line.trim() !== '') {
        line = ' '.repeat(openCol + 1) + line.trimStart();
        lines[n] = line;
        changed = true;
      }
    }
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote === "'") {
        if (c === "'" && line[i + 1] === "'") i++;
        else if (c === "'") quote = undefined;
        continue;
      }
      if (quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') quote = undefined;
        continue;
      }
      // a quote opens a scalar only where a scalar can start (not inside a plain word: it's)
      if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(line[i - 1]!))) quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break;
      else if (c === '[' || c === '{') {
        if (depth === 0) openCol = i;
        depth++;
      } else if ((c === ']' || c === '}') && depth > 0) depth--;
    }
    // a block scalar's lines or a plain line with a stray bracket: give up rather than guess
    if (depth === 0) quote = undefined;
  }
  return changed ? lines.join('\n') : undefined;
}

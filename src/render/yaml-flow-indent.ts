// PyYAML does not check indentation inside a flow collection (`[...]`, `{...}`) or a quoted
// scalar that spans lines: a flow sequence that Salt's `yaml` filter folded at 80 columns, or a
// multi-line string it wrote as `'line one\n\n  '`, continues on lines indented less than the key
// it belongs to, and Salt loads it (openssh-formula's `- contents: {{ banner | yaml }}`). The yaml
// package refuses that. This re-indents such continuation lines past the column where their
// collection or quote opened, which changes no value: YAML folds a line break inside a flow
// collection or a quoted scalar, with the next line's leading spaces, the same way whatever the
// indentation. Line numbers stay as they were, so errors still point at the rendered line.

/** A line that opens a block scalar (`key: |`, `- >-`): its more-indented lines are text. */
const BLOCK_SCALAR = /(^|\s)[|>][-+1-9]{0,2}\s*(#.*)?$/;

/**
 * The text with every line that continues an open flow collection or quoted scalar indented past
 * the column where it opened; undefined when no line needed it.
 */
export function indentFlowContinuations(text: string): string | undefined {
  const lines = text.split('\n');
  let depth = 0;
  let openCol = 0;
  let quote: '"' | "'" | undefined;
  let quoteCol = 0;
  let blockIndent: number | undefined;
  let changed = false;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    const indent = line.length - line.trimStart().length;
    if (blockIndent !== undefined) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = undefined;
    }
    const col = depth > 0 ? openCol : quote !== undefined ? quoteCol : -1;
    if (col >= 0 && indent <= col && line.trim() !== '') {
      line = ' '.repeat(col + 1) + line.trimStart();
      lines[n] = line;
      changed = true;
    }
    let i = 0;
    for (; i < line.length; i++) {
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
      if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(line[i - 1]!))) {
        quote = c;
        if (depth === 0) quoteCol = i;
      } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break;
      else if (c === '[' || c === '{') {
        if (depth === 0) openCol = i;
        depth++;
      } else if ((c === ']' || c === '}') && depth > 0) depth--;
    }
    if (depth === 0 && quote === undefined && BLOCK_SCALAR.test(line.slice(0, i))) blockIndent = indent;
  }
  return changed ? lines.join('\n') : undefined;
}

// Where a template ends inside a block: nunjucks says only "unexpected end of file" (at line 1);
// Jinja2 names the tags it was looking for and the innermost open block. This scans the tags
// (outside comments and raw blocks) to give Jinja2's message at the line of that block's tag.

/** The tags Jinja2 looks for to close each block (jinja2/parser.py's end_token_stack). */
const CLOSERS: Record<string, string[]> = {
  if: ['elif', 'else', 'endif'],
  for: ['endfor', 'else'],
  macro: ['endmacro'],
  call: ['endcall'],
  filter: ['endfilter'],
  with: ['endwith'],
  block: ['endblock'],
  set: ['endset'],
  load_yaml: ['endload'],
  load_json: ['endload'],
  load_text: ['endload'],
};

/** Tags that move an open block to its next part, with the tags that part looks for. */
const PARTS: Record<string, Record<string, string[]>> = {
  if: { elif: ['elif', 'else', 'endif'], else: ['endif'] },
  for: { else: ['endfor'] },
};

interface Open {
  tag: string;
  looking: string[];
  line: number;
  col: number;
}

export interface UnclosedBlock {
  message: string;
  line: number;
  col: number;
}

function position(text: string, index: number): { line: number; col: number } {
  const before = text.slice(0, index);
  return { line: before.split('\n').length, col: index - before.lastIndexOf('\n') };
}

/** Jinja2's "Unexpected end of template" for the innermost block left open, or undefined. */
export function unclosedBlock(text: string): UnclosedBlock | undefined {
  const stack: Open[] = [];
  const re = /\{#[\s\S]*?#\}|\{%[-+]?\s*(\w+)([\s\S]*?)[-+]?%\}/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const tag = m[1];
    if (tag === undefined) continue;
    if (tag === 'raw') {
      // a raw block's text is not tags (an unterminated one is the parser's own error)
      const end = /\{%[-+]?\s*endraw\s*[-+]?%\}/g;
      end.lastIndex = re.lastIndex;
      if (!end.exec(text)) return undefined;
      re.lastIndex = end.lastIndex;
      continue;
    }
    const top = stack[stack.length - 1];
    const part = top ? PARTS[top.tag]?.[tag] : undefined;
    if (top && part) top.looking = part;
    else if (tag.startsWith('end')) stack.pop();
    else if (CLOSERS[tag] && !(tag === 'set' && (m[2] ?? '').includes('='))) stack.push({ tag, looking: CLOSERS[tag]!, ...position(text, m.index) });
  }
  const open = stack[stack.length - 1];
  if (!open) return undefined;
  const looking = open.looking.map((t) => `'${t}'`).join(' or ');
  return {
    message: `Unexpected end of template. Jinja was looking for the following tags: ${looking}. The innermost block that needs to be closed is '${open.tag}'.`,
    line: open.line,
    col: open.col,
  };
}

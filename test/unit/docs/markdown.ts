// Just enough Markdown reading for the doc tests: the repo's docs/ files, sections by heading,
// table rows as cells, and fenced code blocks. Not a general Markdown parser.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../helpers/repo.js';

export { repoRoot };

export function readDoc(name: string): string {
  return fs.readFileSync(path.join(repoRoot(), 'docs', name), 'utf8');
}

export interface Section {
  level: number;
  title: string;
  /** The lines after the heading up to the next heading of the same or a higher level. */
  body: string;
}

/** Every heading of `level`, with its body. Headings inside fenced code are ignored. */
export function sections(markdown: string, level: number): Section[] {
  const out: Section[] = [];
  let current: { title: string; lines: string[] } | undefined;
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6}) (.*)$/.exec(line);
    if (m && m[1]!.length <= level) {
      if (current) out.push({ level, title: current.title, body: current.lines.join('\n') });
      current = m[1]!.length === level ? { title: m[2]!.trim(), lines: [] } : undefined;
      continue;
    }
    current?.lines.push(line);
  }
  if (current) out.push({ level, title: current.title, body: current.lines.join('\n') });
  return out;
}

/** The one section with this title (at this level); throws when there is none or several. */
export function section(markdown: string, level: number, title: string): Section {
  const found = sections(markdown, level).filter((s) => s.title === title);
  if (found.length !== 1) throw new Error(`expected one level-${level} section "${title}", found ${found.length}`);
  return found[0]!;
}

/** Data rows of every table in the text (header and separator rows left out), as trimmed cells. */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  let fenced = false;
  let inTable = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = splitRow(line);
    if (!inTable) {
      inTable = true; // the header row
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    rows.push(cells);
  }
  return rows;
}

/** Splits `| a | b \| c |` on unescaped pipes and unescapes `\|`. */
function splitRow(line: string): string[] {
  const inner = line.replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** The text between backticks when the whole cell is one code span, else undefined. */
export function codeSpan(cell: string): string | undefined {
  const m = /^`([^`]+)`$/.exec(cell);
  return m ? m[1] : undefined;
}

/** Contents of fenced blocks with this info string (e.g. `json`). */
export function fencedBlocks(text: string, info: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\``, 'gm');
  for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

// Reads one YAML configuration file into a top-level mapping, and lists a role's `.d/*.conf`
// drop-ins. Every failure names the file (and the line for YAML errors).

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, type Tags } from 'yaml';
import { BrineError } from '../util/errors.js';
import { describeValue, isPlainMapping } from './check-value.js';

// YAML 1.1 like PyYAML (Salt's loader), so `yes`/`no`/`on`/`off` and `True` are booleans, but
// without timestamps: `2024-01-01` stays a string instead of becoming a Date.
const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
const customTags = (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.tag !== TIMESTAMP_TAG);

// Enough for real configs that reuse a block a few times, far below an exponential expansion.
const MAX_ALIAS_COUNT = 100;

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function unreadable(file: string, err: unknown): BrineError {
  const code = errnoCode(err);
  const why = code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : err instanceof Error ? err.message : String(err);
  return new BrineError('CONFIG_UNREADABLE', `cannot read configuration file ${file}: ${why}`, { cause: err, details: { file } });
}

/**
 * The top-level mapping of a YAML file. A missing file gives undefined, or CONFIG_NOT_FOUND when
 * `required`; an empty file gives `{}` (as in Salt).
 */
export function readConfigFile(file: string, required: boolean): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') {
      if (!required) return undefined;
      throw new BrineError('CONFIG_NOT_FOUND', `configuration file ${file} does not exist`, { cause: err, details: { file } });
    }
    throw unreadable(file, err);
  }
  return parseConfigText(text, file);
}

/** Parses YAML text that came from `file` (named in errors). */
export function parseConfigText(text: string, file: string): Record<string, unknown> {
  const doc = parseDocument(text, { version: '1.1', customTags, prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const pos = first.linePos?.[0];
    // The library's message already ends with "at line N, column M:" followed by a code excerpt.
    const summary = (first.message.split('\n')[0] ?? first.message).replace(/:\s*$/, '');
    throw new BrineError('CONFIG_PARSE', `cannot parse ${file}: ${summary}`, {
      cause: first,
      details: { file, line: pos?.line, column: pos?.col },
    });
  }
  const value = toPlainValue(doc, file);
  if (value === null || value === undefined) return {};
  if (!isPlainMapping(value)) {
    throw new BrineError('CONFIG_PARSE', `${file} must hold \`option: value\` pairs at the top level, got ${describeValue(value)}`, {
      details: { file, line: 1 },
    });
  }
  return value;
}

/**
 * The document as plain data. The yaml library refuses an alias bomb ("billion laughs": aliases
 * that expand exponentially) with a ReferenceError; that is bad input in a named file, so it is a
 * CONFIG_PARSE error that tells the operator which file to fix, never INTERNAL.
 */
function toPlainValue(doc: ReturnType<typeof parseDocument>, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new BrineError('CONFIG_PARSE', `cannot parse ${file}: its YAML aliases (*name) expand too much (${why}); write the values out instead of nesting aliases`, {
      cause: err,
      details: { file },
    });
  }
}

/** `<dir>/<role>.d/*.conf`, sorted by name (later files win); a missing directory gives none. */
export function listDropIns(dropInDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dropInDir);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return [];
    throw unreadable(dropInDir, err);
  }
  // Like Salt's glob: dot files (editor swap files, `.old.conf`) are not included.
  return names
    .filter((n) => n.endsWith('.conf') && !n.startsWith('.'))
    .sort()
    .map((n) => join(dropInDir, n));
}

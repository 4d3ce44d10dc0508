// Reads one YAML configuration file into a top-level mapping, and lists a role's `.d/*.conf`
// drop-ins. Every failure names the file (and the line for YAML errors).

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Document, DocumentOptions, ParseOptions, SchemaOptions, Tags } from 'yaml';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { BAIL, fastLoadYaml } from '../util/yaml-fast.js';
import { UNSURE } from '../util/yaml-scalars.js';
import { describeValue, isPlainMapping } from './check-value.js';

import { yamlPackage } from '../util/yaml-package.js';

// YAML 1.1 like PyYAML (Salt's loader), so `yes`/`no`/`on`/`off` and `True` are booleans, but
// without timestamps: `2024-01-01` stays a string instead of becoming a Date.
const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
const customTags = (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.tag !== TIMESTAMP_TAG);

/** The options of the full parse (tests compare the fast path with it). */
export function configParseOptions(): ParseOptions & DocumentOptions & SchemaOptions {
  return { version: '1.1', customTags, prettyErrors: true };
}

// What the full parser's YAML 1.1 schema makes of a plain scalar, where that is certain without
// it: its bool and null words, small decimal ints and floats, dotted addresses, and text that cannot be a
// number. The package reads `0755`, `1_000`, `1e3`, `.inf`, `12:30`, even `e3` (NaN) and `y` its
// own way: those, and anything starting with a sign, a dot or a digit, bail to it.
const CONFIG_TRUE = /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const CONFIG_FALSE = /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
const CONFIG_NULL = /^(?:~|[Nn]ull|NULL)?$/;
const SMALL_DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})$/;
// `0.5`, `-2.25` (timeouts): the schema's float is parseFloat of the same text
const SIMPLE_FLOAT = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
// no YAML 1.1 number has two dots (an IPv4 address, a version): these stay strings
const DOTTED = /^[0-9]+(?:\.[0-9]+){2,}$/;
const MAYBE_NUMBER = /^(?:[-+.0-9<=]|[eE][-+]?[0-9]+$|[YyNn]$)/;

export function resolveConfigScalar(text: string, _atKey: boolean): unknown {
  if (CONFIG_TRUE.test(text)) return true;
  if (CONFIG_FALSE.test(text)) return false;
  if (CONFIG_NULL.test(text)) return null;
  if (SMALL_DECIMAL.test(text) || SIMPLE_FLOAT.test(text)) return Number(text);
  if (DOTTED.test(text)) return text;
  if (MAYBE_NUMBER.test(text)) return UNSURE;
  return text;
}

// Enough for real configs that reuse a block a few times, far below an exponential expansion.
const MAX_ALIAS_COUNT = 100;

function unreadable(file: string, err: unknown): BrineError {
  const code = errnoCode(err);
  const why = code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : errorMessage(err);
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
  const fast = fastLoadYaml(text, resolveConfigScalar);
  const value = fast === BAIL ? fullParse(text, file) : fast;
  if (value === null || value === undefined) return {};
  if (!isPlainMapping(value)) {
    throw new BrineError('CONFIG_PARSE', `${file} must hold \`option: value\` pairs at the top level, got ${describeValue(value)}`, {
      details: { file, line: 1 },
    });
  }
  return value;
}

/** The `yaml` package's reading of the text, with every syntax error named by file and line. */
function fullParse(text: string, file: string): unknown {
  const doc = yamlPackage().parseDocument(text, configParseOptions());
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
  return toPlainValue(doc, file);
}

/**
 * The document as plain data. The yaml library refuses an alias bomb ("billion laughs": aliases
 * that expand exponentially) with a ReferenceError; that is bad input in a named file, so it is a
 * CONFIG_PARSE error that tells the operator which file to fix, never INTERNAL.
 */
function toPlainValue(doc: Document.Parsed, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const why = errorMessage(err);
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

// An ini file as Salt 3007's salt/modules/ini_manage.py models it (_Section, _Ini): ordered
// options and sections, comments and unparsed lines kept as `#commentN`/`#unknownN` entries, a
// commented-out option replaced in place when it is set, and the whole file written back with
// ` = ` around the separator. Its quirks are Salt's, so a tree's files come out byte for byte
// as Salt writes them.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BrineError, toBrineError } from '../util/errors.js';

const INI_RE = /^\s*\[(.+?)\]\s*$/m;
const COMMENT_RE = /^\s*(#|;)\s*(.*)/;
const INDENTED_RE = /^(\s+)(.*)/;
// Python's str.splitlines() line boundaries
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

export type IniValue = string | IniSection;
/** A change of one option: Salt's {before, after}, or a section's changes by option. */
export type IniChanges = Record<string, unknown>;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stripNewlines = (s: string): string => s.replace(/^\n+|\n+$/g, '');

/** Python's str() of the values a YAML tree gives an option (True, 1, None, a list). */
export function iniText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === 'string' ? `'${x}'` : iniText(x))).join(', ')}]`;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof IniSection);

export class IniSection {
  readonly entries = new Map<string, IniValue | null>();
  protected sep: string;
  private readonly optRe: RegExp;

  constructor(
    readonly name: string,
    separator: string,
  ) {
    this.sep = separator;
    this.optRe = new RegExp(`^(\\s*)(.+?)\\s*(${escapeRe(separator)})\\s*(.*)\\s*`);
  }

  /** Parses the lines of one section (Salt's _Section.refresh). */
  parse(text: string): void {
    const body = stripNewlines(text);
    if (!body) return;
    this.entries.clear();
    let comments = 1;
    let unknown = 1;
    let indent = '';
    for (const line of body.split('\n')) {
      if (COMMENT_RE.test(line)) {
        this.update({ [`#comment${comments++}`]: line });
        continue;
      }
      // A line indented deeper than the last option continues its value
      const ind = INDENTED_RE.exec(line);
      if (ind && ind[1]!.replace(/\t/g, '    ') > indent) {
        const prev = [...this.entries.keys()].at(-1);
        if (prev !== undefined) this.entries.set(prev, `${String(this.entries.get(prev))}\n${line}`);
        continue;
      }
      const opt = this.optRe.exec(line);
      if (opt) {
        indent = opt[1]!.replace(/\t/g, '    ');
        this.sep = opt[3]!;
        this.update({ [opt[2]!]: opt[4]! });
        continue;
      }
      this.update({ [`#unknown${unknown++}`]: line });
    }
  }

  get(key: string): IniValue | null | undefined {
    return this.entries.get(key);
  }

  /** Salt's _uncomment_if_commented: a commented-out `key = ...` line gives its place to the key. */
  private uncommentInPlace(key: string): void {
    const keys = [...this.entries.keys()];
    const at = keys.findIndex((k) => {
      const v = this.entries.get(k);
      if (!k.includes('#comment') || typeof v !== 'string') return false;
      return this.optRe.exec(v.replace(/^#+/, ''))?.[2] === key;
    });
    if (at < 0) {
      this.entries.set(key, null);
      return;
    }
    const after = keys.slice(at + 1).map((k) => [k, this.entries.get(k) ?? null] as const);
    for (const k of keys.slice(at)) this.entries.delete(k);
    this.entries.set(key, null);
    for (const [k, v] of after) this.entries.set(k, v);
  }

  /** Sets options and sections; returns Salt's changes ({key: {before, after}} or nested). */
  update(values: Record<string, unknown>): IniChanges {
    const changes: IniChanges = {};
    for (const [key, raw] of Object.entries(values)) {
      let value: IniValue;
      let plain: unknown;
      if (isMapping(raw) || raw instanceof IniSection) {
        const sect = new IniSection(key, this.sep);
        sect.update(raw instanceof IniSection ? Object.fromEntries(raw.entries) : raw);
        value = sect;
        plain = sect.asDict();
      } else {
        value = iniText(raw);
        plain = value;
      }
      const cur = this.entries.get(key);
      if (!this.entries.has(key)) {
        changes[key] = { before: null, after: plain };
        if (typeof value === 'string') this.uncommentInPlace(key);
        this.entries.set(key, value);
      } else if (cur instanceof IniSection) {
        // Salt merges into an existing section (a string over a section is ignored there too)
        const sub = cur.update(value instanceof IniSection ? Object.fromEntries(value.entries) : {});
        if (Object.keys(sub).length > 0) changes[key] = sub;
      } else if (cur !== value) {
        changes[key] = { before: cur, after: plain };
        this.entries.set(key, value);
      }
    }
    return changes;
  }

  delete(key: string): IniValue | null | undefined {
    const v = this.entries.get(key);
    this.entries.delete(key);
    return v;
  }

  /** The options and sections with comments left out (Salt's get_ini / get_section). */
  toData(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of this.entries) if (!k.startsWith('#')) out[k] = v instanceof IniSection ? v.toData() : v;
    return out;
  }

  /** dict(section), comments included, as Salt's as_dict gives a new section in its changes. */
  asDict(): Record<string, unknown> {
    return Object.fromEntries([...this.entries].map(([k, v]) => [k, v instanceof IniSection ? v.asDict() : v]));
  }

  /** Salt's gen_ini: a blank line and the header, options with ` = `, then nested sections. */
  render(): string[] {
    const out = [`\n[${this.name}]\n`];
    const sections: IniSection[] = [];
    for (const [k, v] of this.entries) {
      if (COMMENT_RE.test(k)) out.push(`${String(v)}\n`);
      else if (v instanceof IniSection) sections.push(v);
      else out.push(`${k}${this.sep !== ' ' ? ` ${this.sep} ` : this.sep}${String(v)}\n`);
    }
    for (const s of sections) out.push(...s.render());
    return out;
  }
}

/** A whole ini file: top-level options, then `[section]`s (Salt's _Ini). */
export class IniFile extends IniSection {
  constructor(
    readonly path: string,
    separator: string,
  ) {
    super(path, separator);
  }

  /** Reads the file; a missing file is empty (set_option creates it). */
  static read(path: string, separator = '='): IniFile {
    const ini = new IniFile(path, separator);
    if (!existsSync(path)) return ini;
    let text: string;
    try {
      text = readFileSync(path, 'utf8').split(LINE_BREAKS).join('\n');
    } catch (err) {
      throw new BrineError('EXEC_FAILED', `Unable to open file '${path}'. Exception: ${toBrineError(err).message}`, { cause: err });
    }
    // Python's str.splitlines drops the empty piece after a final newline
    ini.load(text.replace(/\n$/, ''));
    return ini;
  }

  private load(text: string): void {
    if (!text) return;
    const parts = text.split(new RegExp(INI_RE.source, 'm'));
    this.parse(parts[0] ?? '');
    for (let i = 1; i + 1 < parts.length; i += 2) {
      const sect = new IniSection(parts[i]!, this.sep);
      sect.parse(parts[i + 1]!);
      this.update({ [sect.name]: sect });
    }
  }

  /** Writes the file as Salt's flush does (the whole file; no leading blank line). */
  write(): void {
    const lines = this.render().slice(1);
    if (lines.length > 0) lines[0] = lines[0]!.replace(/^\n+/, '');
    try {
      writeFileSync(this.path, lines.join(''));
    } catch (err) {
      throw new BrineError('EXEC_FAILED', `Unable to write file '${this.path}'. Exception: ${toBrineError(err).message}`, { cause: err });
    }
  }
}

// The `ini` execution module (Salt's salt/modules/ini_manage.py): read and edit ini files with
// Salt's model (ini-file.ts), for the ini.* states and for trees calling salt['ini.get_option'].

import { BrineError } from '../util/errors.js';
import { defineFunction, defineParam, defineParams } from './define-function.js';
import { IniFile, IniSection } from './ini-file.js';
import type { ModuleFunction } from './types.js';

const FILE = defineParam({ name: 'file_name', type: 'string', required: true, doc: 'the ini file' });
const SEPARATOR = defineParam({ name: 'separator', type: 'string', default: '=', doc: "between key and value ('=' by default; ' ' for space-separated files)" });
const ENCODING = defineParam({ name: 'encoding', type: 'string', doc: 'accepted as Salt does; files are read and written as UTF-8' });
const SECTION = defineParam({ name: 'section', type: 'any', required: true, doc: 'the section; empty or None for an option outside any section' });
const OPTION_PARAMS = defineParams([FILE, SECTION, { name: 'option', type: 'string', required: true, doc: 'the key' }, SEPARATOR, ENCODING]);

const sectionName = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

/** A section's options without its comments, or {} (Salt's get_section). */
function plainSection(v: unknown): Record<string, unknown> {
  return v instanceof IniSection ? Object.fromEntries([...v.entries].filter(([k]) => !k.startsWith('#'))) : {};
}

/** Salt's set_option: applies the options and sections, writes the file, returns the changes. */
export function iniSetOption(file: string, sections: unknown, separator: string): Record<string, unknown> {
  if (sections !== undefined && sections !== null && (typeof sections !== 'object' || Array.isArray(sections))) {
    throw new BrineError('BAD_ARGUMENTS', `ini.set_option: sections must be a mapping of sections (or of options outside any section), got ${JSON.stringify(sections)}`);
  }
  const ini = IniFile.read(file, separator);
  const changes = ini.update((sections ?? {}) as Record<string, unknown>);
  ini.write();
  return changes;
}

/** Salt's remove_option: the removed value, or null; the file is written back either way. */
export function iniRemoveOption(file: string, section: string | undefined, option: string, separator: string): unknown {
  const ini = IniFile.read(file, separator);
  const sect = section === undefined ? undefined : ini.get(section);
  // Salt pops a top-level key when `section` is not a section (even a section named `option`)
  const value = sect instanceof IniSection ? sect.delete(option) : ini.delete(option);
  ini.write();
  return value instanceof IniSection ? value.toData() : (value ?? null);
}

export const iniFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'ini.set_option',
    doc: 'Set options and sections of an ini file ({section: {key: value}}, or {key: value} outside sections); returns the changes.',
    params: [FILE, { name: 'sections', type: 'any', doc: 'the sections and options to set' }, SEPARATOR, ENCODING],
    run: (_ctx, a) => iniSetOption(a.named.file_name, a.named.sections, a.named.separator),
  }),
  defineFunction({
    name: 'ini.get_option',
    doc: 'The value of one option, or None.',
    params: OPTION_PARAMS,
    run: (_ctx, a) => {
      const ini = IniFile.read(a.named.file_name, a.named.separator);
      const section = sectionName(a.named.section);
      if (section === undefined) return ini.get(a.named.option) ?? null;
      const sect = ini.get(section);
      return sect instanceof IniSection ? (sect.get(a.named.option) ?? null) : null;
    },
  }),
  defineFunction({
    name: 'ini.remove_option',
    doc: 'Remove one option; returns its value, or None when it was not there.',
    params: OPTION_PARAMS,
    run: (_ctx, a) => iniRemoveOption(a.named.file_name, sectionName(a.named.section), a.named.option, a.named.separator),
  }),
  defineFunction({
    name: 'ini.get_section',
    doc: 'The options of one section ({} when it is missing).',
    params: [FILE, { name: 'section', type: 'string', required: true, doc: 'the section' }, SEPARATOR, ENCODING],
    run: (_ctx, a) => plainSection(IniFile.read(a.named.file_name, a.named.separator).get(a.named.section)),
  }),
  defineFunction({
    name: 'ini.remove_section',
    doc: 'Remove one section; returns its options, or None when it was not there.',
    params: [FILE, { name: 'section', type: 'string', required: true, doc: 'the section' }, SEPARATOR, ENCODING],
    run: (_ctx, a) => {
      const ini = IniFile.read(a.named.file_name, a.named.separator);
      if (!ini.entries.has(a.named.section)) return null;
      const removed = ini.delete(a.named.section);
      ini.write();
      return removed instanceof IniSection ? plainSection(removed) : removed;
    },
  }),
  defineFunction({
    name: 'ini.get_ini',
    doc: 'The whole file as {option: value, section: {option: value}}, comments left out.',
    params: [FILE, SEPARATOR, ENCODING],
    run: (_ctx, a) => IniFile.read(a.named.file_name, a.named.separator).toData(),
  }),
];

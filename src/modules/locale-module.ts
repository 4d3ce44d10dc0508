// The `locale` module for Debian-style hosts (Salt's localemod): the system locale is LANG in
// /etc/default/locale; locales are generated from /etc/locale.gen with locale-gen.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

const DEFAULT_LOCALE = '/etc/default/locale';
const LOCALE_GEN = '/etc/locale.gen';
const SUPPORTED = '/usr/share/i18n/SUPPORTED';
const LOCALE = /^[A-Za-z0-9_.@-]+( [A-Za-z0-9_-]+)?$/;

function check(fun: string, locale: string): string {
  if (!LOCALE.test(locale)) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${locale}' is not a locale name (like en_US.UTF-8)`);
  return locale;
}

/** Salt's normalize_locale: territory upper-cased, codeset lower-cased without '-', no charmap. */
export function normalizeLocale(loc: string): string {
  const [work0] = loc.split(' ', 1);
  const [work1, modifier = ''] = (work0 ?? '').split(/@(.*)/s);
  const [work2, codeset = ''] = (work1 ?? '').split(/\.(.*)/s);
  const [language, territory = ''] = (work2 ?? '').split(/_(.*)/s);
  let out = language ?? '';
  if (territory) out += `_${territory.toUpperCase()}`;
  if (codeset) out += `.${codeset.toLowerCase().replace(/-/g, '')}`;
  if (modifier) out += `@${modifier}`;
  return out;
}

export function getLocale(): string {
  if (!existsSync(DEFAULT_LOCALE)) return '';
  const m = /^LANG=(.*)$/m.exec(readFileSync(DEFAULT_LOCALE, 'utf8'));
  return m ? m[1]!.trim().replace(/^["']|["']$/g, '') : '';
}

async function listAvail(fun: string): Promise<string[]> {
  const r = await runArgv(fun, ['locale', '-a']);
  return r.stdout.split('\n').filter(Boolean);
}

const NAME = { name: 'locale', type: 'string', required: true, doc: 'e.g. en_US.UTF-8' } as const;

export const localeFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'locale.get_locale',
    doc: "The system locale (LANG in /etc/default/locale; '' when unset).",
    params: [],
    run: () => getLocale(),
  }),
  defineFunction({
    name: 'locale.set_locale',
    doc: 'Set the system locale (LANG in /etc/default/locale).',
    params: [NAME],
    run: (_ctx, a) => {
      const locale = check('locale.set_locale', a.named.locale);
      const text = existsSync(DEFAULT_LOCALE) ? readFileSync(DEFAULT_LOCALE, 'utf8') : '';
      const line = `LANG=${locale}`;
      writeFileSync(DEFAULT_LOCALE, /^LANG=.*$/m.test(text) ? text.replace(/^LANG=.*$/m, line) : `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`);
      return true;
    },
  }),
  defineFunction({
    name: 'locale.list_avail',
    doc: 'The generated locales (locale -a).',
    params: [],
    run: () => listAvail('locale.list_avail'),
  }),
  defineFunction({
    name: 'locale.avail',
    doc: 'Whether a locale is generated (names compared normalized: en_US.UTF-8 is en_US.utf8).',
    params: [NAME],
    run: async (_ctx, a) => {
      const want = normalizeLocale(a.named.locale);
      return (await listAvail('locale.avail')).some((l) => normalizeLocale(l) === want);
    },
  }),
  defineFunction({
    name: 'locale.gen_locale',
    doc: 'Generate a locale: enable it in /etc/locale.gen and run locale-gen; returns whether that worked.',
    params: [NAME],
    kwargs: true,
    run: async (_ctx, a) => {
      const fun = 'locale.gen_locale';
      const locale = check(fun, a.named.locale);
      const supported = existsSync(SUPPORTED) ? readFileSync(SUPPORTED, 'utf8').split('\n') : [];
      // Debian lists "en_US.UTF-8 UTF-8"; a name without its charmap is the same locale.
      const entry = supported.find((l) => l === locale || l.startsWith(`${locale} `));
      if (!entry) return false;
      if (!which('locale-gen')) throw new BrineError('EXEC_FAILED', `${fun}: Command "locale-gen" was not found on this system (Debian: apt-get install locales)`);
      if (existsSync(LOCALE_GEN)) {
        const text = readFileSync(LOCALE_GEN, 'utf8');
        const esc = entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const commented = new RegExp(`^[ \\t]*#[ \\t]*${esc}[ \\t]*$`, 'm');
        const active = new RegExp(`^${esc}[ \\t]*$`, 'm');
        if (commented.test(text)) writeFileSync(LOCALE_GEN, text.replace(commented, entry));
        else if (!active.test(text)) writeFileSync(LOCALE_GEN, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${entry}\n`);
      } else {
        writeFileSync(LOCALE_GEN, `${entry}\n`);
      }
      return (await runArgv(fun, ['locale-gen'])).retcode === 0;
    },
  }),
];

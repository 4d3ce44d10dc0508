// Salt's locale_info grain: defaultlanguage/defaultencoding (Python's getdefaultlocale over
// LC_ALL, LC_CTYPE, LANG, LANGUAGE), detectedencoding (the encoding Salt decodes output with)
// and timezone (the local zone's abbreviation now, as time.tzname gives it).

import { readFileSync } from 'node:fs';

/**
 * Pure: getdefaultlocale for this environment. Python's alias table maps C.UTF-8 to en_US.UTF-8
 * and spells UTF-8 in capitals; a locale without an encoding reports null for it (docs/grains.md).
 */
export function defaultLocale(env: Readonly<Record<string, string | undefined>>): [string | null, string | null] {
  let name = 'C';
  for (const v of ['LC_ALL', 'LC_CTYPE', 'LANG', 'LANGUAGE']) {
    const value = env[v];
    if (value) {
      name = v === 'LANGUAGE' ? (value.split(':')[0] ?? '') : value;
      break;
    }
  }
  const bare = name.split('@')[0] ?? '';
  if (bare === 'C' || bare === 'POSIX' || bare === '') return [null, null];
  const [lang = '', enc] = bare.split('.');
  const encoding = enc === undefined ? null : /^utf-?8$/i.test(enc) ? 'UTF-8' : enc;
  if (lang === 'C' || lang === 'POSIX') return encoding === 'UTF-8' ? ['en_US', 'UTF-8'] : [null, null];
  return [lang, encoding];
}

/** The std and dst abbreviations and the std offset (minutes east of UTC) of a POSIX TZ string. */
export function parsePosixTz(tz: string): { std: string; dst?: string; stdOffset: number } | undefined {
  const m = /^(<[^>]+>|[A-Za-z]{3,})([+-]?\d{1,2}(?::\d{2}){0,2})(<[^>]+>|[A-Za-z]{3,})?/.exec(tz.trim());
  if (!m) return undefined;
  const name = (s: string) => s.replace(/^<|>$/g, '');
  const [h = '0', min = '0'] = (m[2] ?? '0').replace(/^[+-]/, '').split(':');
  const sign = (m[2] ?? '').startsWith('-') ? 1 : -1; // POSIX offsets count west of UTC
  return { std: name(m[1] ?? ''), ...(m[3] ? { dst: name(m[3]) } : {}), stdOffset: sign * (Number(h) * 60 + Number(min)) };
}

/** The POSIX TZ string at the end of a TZif (version 2+) file: its last line. */
function tzifFooter(file: string): string | undefined {
  try {
    const text = readFileSync(file).toString('latin1');
    const lines = text.split('\n');
    return lines.length >= 2 ? lines[lines.length - 2] : undefined;
  } catch {
    return undefined;
  }
}

/** The timezone abbreviation now ('unknown' when the zone cannot be read). */
export function timezoneAbbreviation(tzEnv: string | undefined, now = new Date()): string {
  let spec: string | undefined;
  const tz = tzEnv?.replace(/^:/, '');
  if (tz === undefined || tz === '') spec = tzifFooter('/etc/localtime');
  else spec = parsePosixTz(tz) !== undefined && !tz.includes('/') ? tz : tzifFooter(tz.startsWith('/') ? tz : `/usr/share/zoneinfo/${tz}`);
  const parsed = spec === undefined ? undefined : parsePosixTz(spec);
  if (parsed === undefined) return 'unknown';
  const offsetNow = -now.getTimezoneOffset();
  return parsed.dst !== undefined && offsetNow !== parsed.stdOffset ? parsed.dst : parsed.std;
}

export function localeInfoGrain(env: Readonly<Record<string, string | undefined>> = process.env): Record<string, unknown> {
  const [defaultlanguage, defaultencoding] = defaultLocale(env);
  // Salt takes sys.stdin's encoding; Python 3 reports utf-8 under any UTF-8 or C locale
  return { locale_info: { defaultlanguage, defaultencoding, detectedencoding: 'utf-8', timezone: timezoneAbbreviation(env.TZ) } };
}

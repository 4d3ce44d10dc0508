// status.time (salt/modules/status.py time_): the minion's local time through Python's strftime
// in the C locale. A template function, so pillar SLS files (postgres-formula's pillar.example
// names backups with it) render on the master too.

import { PyError } from '../jinja/py-values.js';
import type { TemplateFunction } from './template-function.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function pad(n: number, width = 2, fill = '0'): string {
  return String(n).padStart(width, fill);
}

/** Python's time.strftime in the C locale, local time. */
export function strftime(format: string, d: Date): string {
  const dayOfYear = Math.floor((Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(d.getFullYear(), 0, 1)) / 86_400_000) + 1;
  const offset = -d.getTimezoneOffset();
  const directive: Record<string, () => string> = {
    a: () => DAYS[d.getDay()]!.slice(0, 3),
    A: () => DAYS[d.getDay()]!,
    b: () => MONTHS[d.getMonth()]!.slice(0, 3),
    h: () => MONTHS[d.getMonth()]!.slice(0, 3),
    B: () => MONTHS[d.getMonth()]!,
    d: () => pad(d.getDate()),
    e: () => pad(d.getDate(), 2, ' '),
    H: () => pad(d.getHours()),
    I: () => pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12),
    j: () => pad(dayOfYear, 3),
    m: () => pad(d.getMonth() + 1),
    M: () => pad(d.getMinutes()),
    p: () => (d.getHours() < 12 ? 'AM' : 'PM'),
    S: () => pad(d.getSeconds()),
    f: () => pad(d.getMilliseconds() * 1000, 6),
    y: () => pad(d.getFullYear() % 100),
    Y: () => String(d.getFullYear()),
    w: () => String(d.getDay()),
    u: () => String(d.getDay() === 0 ? 7 : d.getDay()),
    z: () => `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`,
    s: () => String(Math.floor(d.getTime() / 1000)),
    F: () => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    T: () => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    D: () => `${pad(d.getMonth() + 1)}/${pad(d.getDate())}/${pad(d.getFullYear() % 100)}`,
    R: () => `${pad(d.getHours())}:${pad(d.getMinutes())}`,
    c: () => `${DAYS[d.getDay()]!.slice(0, 3)} ${MONTHS[d.getMonth()]!.slice(0, 3)} ${pad(d.getDate(), 2, ' ')} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${d.getFullYear()}`,
    x: () => `${pad(d.getMonth() + 1)}/${pad(d.getDate())}/${pad(d.getFullYear() % 100)}`,
    X: () => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    n: () => '\n',
    t: () => '\t',
    '%': () => '%',
  };
  return format.replace(/%(.?)/g, (all, c: string) => {
    const f = Object.hasOwn(directive, c) ? directive[c] : undefined;
    if (!f) throw new PyError(`ValueError: status.time: the strftime directive ${all} is not supported by brine`);
    return f();
  });
}

export const TIME_FUNCTIONS: Record<string, TemplateFunction> = {
  'status.time': {
    doc: "The minion's local time formatted with Python's strftime (default '%A, %d. %B %Y %I:%M%p').",
    params: [{ name: 'format', default: '%A, %d. %B %Y %I:%M%p' }],
    run: (_h, a) => strftime(String(a.format), new Date()),
  },
};

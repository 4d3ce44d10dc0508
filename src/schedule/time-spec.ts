// The time strings schedule entries use (`when`, `range`, `once`, `until`, `after`), read in the
// minion's local time zone as Salt's dateutil does. Salt accepts anything dateutil parses; brine
// reads the common forms (docs/schedule.md lists them) and refuses the rest with a message.

/** A time of day (every day, or one weekday) or one date and time. */
export type ClockTime = { kind: 'daily'; seconds: number } | { kind: 'date'; at: number };

export type WhenSpec = { kind: 'daily'; seconds: number; weekday: number | undefined } | { kind: 'date'; at: number };

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Seconds after midnight for '17:00', '5:00pm', '5pm', '17:00:30'; undefined otherwise. */
export function parseTimeOfDay(text: string): number | undefined {
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const second = m[3] === undefined ? 0 : Number(m[3]);
  const half = m[4]?.toLowerCase();
  if (m[2] === undefined && half === undefined) return undefined; // a bare number is not a time
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return hour * 3600 + minute * 60 + second;
}

/** Epoch ms for '2026-12-31 23:00', '2026-12-31T23:00:00' (local time); undefined otherwise. */
export function parseDateTime(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const date = new Date(y, mo - 1, d, h, mi, s);
  // Date rolls 31 February over into March: refuse instead
  if (date.getFullYear() !== y || date.getMonth() !== mo - 1 || date.getDate() !== d || date.getHours() !== h || date.getMinutes() !== mi) return undefined;
  return date.getTime();
}

export function parseClockTime(text: string): ClockTime | undefined {
  const seconds = parseTimeOfDay(text);
  if (seconds !== undefined) return { kind: 'daily', seconds };
  const at = parseDateTime(text);
  return at === undefined ? undefined : { kind: 'date', at };
}

/** A `when` item: a time of day, a weekday and time ('Monday 5:00pm'), or a date and time. */
export function parseWhen(text: string): WhenSpec | undefined {
  const m = /^([A-Za-z]+)\s+(.+)$/.exec(text.trim());
  if (m) {
    const day = WEEKDAYS.findIndex((w) => w === m[1]!.toLowerCase() || w.slice(0, 3) === m[1]!.toLowerCase());
    const seconds = parseTimeOfDay(m[2]!);
    if (day < 0 || seconds === undefined) return undefined;
    return { kind: 'daily', seconds, weekday: day };
  }
  const clock = parseClockTime(text);
  if (clock === undefined) return undefined;
  return clock.kind === 'date' ? clock : { kind: 'daily', seconds: clock.seconds, weekday: undefined };
}

/** Midnight (local) of the day holding `ms`. */
function midnight(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** Local time `seconds` after midnight of the day `dayOffset` days after the one holding `ms`. */
function atDay(ms: number, dayOffset: number, seconds: number): number {
  const d = new Date(midnight(ms));
  d.setDate(d.getDate() + dayOffset);
  d.setHours(0, 0, seconds);
  return d.getTime();
}

/** The first time strictly after `afterMs` that matches one of `specs`, or undefined. */
export function nextWhen(specs: readonly WhenSpec[], afterMs: number): number | undefined {
  let best: number | undefined;
  for (const spec of specs) {
    let t: number | undefined;
    if (spec.kind === 'date') t = spec.at > afterMs ? spec.at : undefined;
    else {
      for (let day = 0; day <= 7 && t === undefined; day++) {
        const candidate = atDay(afterMs, day, spec.seconds);
        if (candidate <= afterMs) continue;
        if (spec.weekday === undefined || new Date(candidate).getDay() === spec.weekday) t = candidate;
      }
    }
    if (t !== undefined && (best === undefined || t < best)) best = t;
  }
  return best;
}

/** Whether `ms` lies in [start, end]; daily times wrap past midnight when end is before start. */
export function inRange(start: ClockTime, end: ClockTime, ms: number): boolean {
  if (start.kind === 'date' && end.kind === 'date') return ms >= start.at && ms <= end.at;
  const secondsOf = (c: ClockTime): number => (c.kind === 'daily' ? c.seconds : Math.floor((c.at - midnight(c.at)) / 1000));
  const now = Math.floor((ms - midnight(ms)) / 1000);
  const s = secondsOf(start);
  const e = secondsOf(end);
  return s <= e ? now >= s && now <= e : now >= s || now <= e;
}

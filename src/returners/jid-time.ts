// Salt's salt.utils.jid.jid_to_time: a jid's digits as '2026, Dec 07 06:12:00.123456'.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The StartTime Salt shows for a jid; '' for anything that is not a 20-digit jid, as Salt does. */
export function jidStartTime(jid: string): string {
  if (!/^\d{20}$/.test(jid)) return '';
  const month = MONTHS[Number(jid.slice(4, 6)) - 1];
  if (month === undefined) return '';
  return `${jid.slice(0, 4)}, ${month} ${jid.slice(6, 8)} ${jid.slice(8, 10)}:${jid.slice(10, 12)}:${jid.slice(12, 14)}.${jid.slice(14, 20)}`;
}

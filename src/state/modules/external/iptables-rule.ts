// Salt's iptables.build_rule (salt/modules/iptables.py): the state's keyword arguments turned
// into iptables options, in Salt's order (interfaces, protocol, matches, state, ports, comment,
// set, the other options in the order given, the jump and its own options last), and the full
// command line the state's comments quote. Pure: no program runs here.

const NEGATION = /^(!|not)\s?/;

// Options that belong to the jump target and must follow it ('j' and 'jump' first), as Salt lists them.
const AFTER_JUMP = (
  'j jump add-set and-mark and-tos checksum-fill clamp-mss-to-pmtu clustermac ctevents ctmask del-set ecn-tcp-remove exist expevents gateway ' +
  'hash-init hashmode helper label local-node log-ip-options log-level log-prefix log-tcp-options log-tcp-sequence log-uid mask new nfmask ' +
  'nflog-group nflog-prefix nflog-range nflog-threshold nodst notrack on-ip on-port or-mark or-tos persistent queue-balance queue-bypass ' +
  'queue-num random rateest-ewmalog rateest-interval rateest-name reject-with restore restore-mark save-mark selctx set-class set-dscp ' +
  'set-dscp-class set-mark set-mss set-tos set-xmark strip-options timeout to to-destination to-ports to-source total-nodes tproxy-mark ' +
  'ttl-dec ttl-inc ttl-set type ulog-cprange ulog-nlgroup ulog-prefix ulog-qthreshold xor-mark xor-tos zone dst-pfx hl-dec hl-inc hl-set ' +
  'hmark-dport-mask hmark-dst-prefix hmark-mod hmark-offset hmark-proto-mask hmark-rnd hmark-spi-mask hmark-sport-mask hmark-src-prefix ' +
  'hmark-tuple led-always-blink led-delay led-trigger-id queue-cpu-fanout src-pfx to-port addr and-mask delude honeypot or-mask prefix ' +
  'reset reuse set-mac shift static tarpit tname ttl'
).split(' ');

// Keys of the state that are not iptables options.
const NOT_OPTIONS = new Set(['name', 'state', 'chain', 'save', 'table', 'family', 'position', 'command', 'full', 'rules']);

const text = (v: unknown): string => (typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));

/** The rule part (`-p tcp -m tcp --dport 22 --jump ACCEPT`) from the state's keyword arguments. */
export function buildRule(kwargs: Readonly<Record<string, unknown>>): string {
  const kw = new Map<string, unknown>();
  for (const [k, v] of Object.entries(kwargs)) if (!NOT_OPTIONS.has(k) && v !== undefined) kw.set(k === 'target' ? 'jump' : k, v);
  const rule: string[] = [];
  // '!value' or 'not value' negates the option: the '!' goes before it and leaves the value.
  const negation = (key: string): string => {
    const value = text(kw.get(key));
    if (NEGATION.test(value)) {
      kw.set(key, value.replace(NEGATION, ''));
      return '! ';
    }
    return '';
  };
  const take = (key: string, flag: string): void => {
    if (!kw.has(key)) return;
    const neg = negation(key);
    rule.push(`${neg}${flag} ${text(kw.get(key))}`);
    kw.delete(key);
  };
  take('if', '-i');
  take('of', '-o');
  let proto = false;
  for (const key of ['protocol', 'proto']) {
    if (!kw.has(key)) continue;
    if (!proto) rule.push(`${negation(key)}-p ${text(kw.get(key))}`);
    proto = true;
    kw.delete(key);
  }
  if (kw.has('match')) {
    const m = kw.get('match');
    const matches = Array.isArray(m) ? m.map(text) : text(m).split(',');
    for (const match of matches) {
      rule.push(`-m ${match}`);
      if (kw.has('name_') && ['pknock', 'quota2', 'recent'].includes(match.trim())) {
        rule.push(`--name ${text(kw.get('name_'))}`);
        kw.delete('name_');
      }
    }
    kw.delete('match');
  }
  if (kw.has('match-set')) {
    const m = kw.get('match-set');
    for (const set of (Array.isArray(m) ? m : [m]).map(text)) rule.push(`-m set ${NEGATION.test(set) ? '! ' : ''}--match-set ${set.replace(NEGATION, '')}`);
    kw.delete('match-set');
  }
  if (kw.has('connstate')) {
    if (!rule.includes('-m state')) rule.push('-m state');
    take('connstate', '--state');
  }
  take('dport', '--dport');
  take('sport', '--sport');
  for (const mp of ['dports', 'sports']) {
    if (!kw.has(mp)) continue;
    if (!rule.includes('-m multiport')) {
      rule.push('-m multiport');
      if (!proto) throw new Error('Error: proto must be specified');
    }
    const v = kw.get(mp);
    const values = (Array.isArray(v) ? v : [v]).map(text);
    if (values.some((x) => NEGATION.test(x))) rule.push('!');
    rule.push(`--${mp} ${values.map((x) => x.replace(NEGATION, '')).join(',')}`);
    kw.delete(mp);
  }
  if (kw.has('comment')) {
    if (!rule.includes('-m comment')) rule.push('-m comment');
    rule.push(`--comment "${text(kw.get('comment'))}"`);
    kw.delete('comment');
  }
  if (kw.has('set') && kw.get('set')) take('set', '--match-set');
  const afterJump: string[] = [];
  for (const key of AFTER_JUMP) {
    if (!kw.has(key)) continue;
    const value = kw.get(key);
    if (value === null || value === '') afterJump.push(`--${key}`);
    else if (/\s/.test(text(value))) afterJump.push(`--${key} "${text(value)}"`);
    else afterJump.push(`--${key} ${text(value)}`);
    kw.delete(key);
  }
  for (const key of [...kw.keys()]) {
    const neg = negation(key);
    const value = kw.get(key);
    rule.push(`${neg}${key.length === 1 ? '-' : '--'}${key}${value === null || value === '' ? '' : ` ${text(value)}`}`);
  }
  return [...rule, ...afterJump].join(' ');
}

/** Salt's full=True form: `<iptables> --wait -t <table> -<A|I|D> <chain> <position> <rule>`, as its comments quote it. */
export function fullCommand(program: string, wait: boolean, table: string, command: string, chain: string, position: string, rule: string): string {
  return `${program} ${wait ? '--wait' : ''} -t ${table} -${command} ${chain} ${position} ${rule}`.trim();
}

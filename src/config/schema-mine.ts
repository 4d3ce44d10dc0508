// The mine's options (docs/mine.md), spliced into the option table (schema.ts) last. Same row
// format and `as const` as schema.ts.

const MASTER = ['master'] as const;
const MINION = ['minion'] as const;

export const MINE_OPTIONS = [
  // the mine (docs/mine.md)
  {
    name: 'mine_functions',
    type: 'map',
    default: {},
    roles: MINION,
    doc: "Functions whose returns this minion sends to the master's mine, as Salt writes them (`network.ip_addrs: []`, `network.ip_addrs: [eth0]`, an alias with `mine_function:` and its arguments, `allow_tgt`/`allow_tgt_type`); a `mine_functions` pillar key adds entries (this config wins for the same name). See docs/mine.md.",
  },
  {
    name: 'mine_interval',
    type: 'number',
    min: 0,
    minExclusive: true,
    default: 60,
    roles: MINION,
    unit: 'min',
    doc: 'Minutes between two runs of mine.update (fractions allowed); the first run is at start, once a master session is up.',
  },
  { name: 'mine_enabled', type: 'bool', default: true, roles: MINION, doc: 'Run mine.update at start and every mine_interval; off means only explicit mine.* calls touch the mine.' },
  {
    name: 'mine_get_pillar_targets',
    type: 'bool',
    default: false,
    roles: MASTER,
    doc: "Let a minion's mine.get select minions by their pillar (tgt_type pillar, pillar_pcre, pillar_exact, I@/J@ in a compound), as Salt does. Off by default, refused with PILLAR_DENIED: which minions answer tells the asker whether another minion's pillar matches its pattern, so a minion could read another's secrets one query at a time.",
  },
] as const;

// Returners' options (docs/returners.md), spliced into the option table (schema.ts). Each
// returner's own options (`returner.postgres.host`, `syslog.level` ...) are read as written, as
// Salt's get_returner_options reads them. Same row format and `as const` as schema.ts.

const MASTER = ['master'] as const;
const MINION = ['minion'] as const;

export const RETURNER_OPTIONS = [
  {
    name: 'return',
    type: 'string_or_list',
    default: '',
    roles: MINION,
    doc: "Returners every job's return is also sent to, after the job, besides the master (Salt's minion `return`), e.g. `return: postgres` or `return: [syslog, postgres]`; added to a job's own `--return`.",
  },
  {
    name: 'event_return',
    type: 'string_or_list',
    default: '',
    roles: MASTER,
    doc: "Returners that store every event of the master's bus (their `event_return`), e.g. `event_return: postgres` (Salt's salt_events table); '' for none.",
  },
  {
    name: 'event_return_queue',
    type: 'int',
    min: 0,
    default: 0,
    roles: MASTER,
    doc: 'Events queued before they go to the event_return returners in one batch; 0 sends each event at once.',
  },
  {
    name: 'event_return_queue_max_seconds',
    type: 'int',
    min: 0,
    default: 0,
    roles: MASTER,
    unit: 's',
    doc: 'The longest a queued event waits for its batch (event_return_queue); 0 means no limit. brine flushes on a timer; Salt checks when the next event arrives.',
  },
  { name: 'event_return_whitelist', type: 'list', default: [], roles: MASTER, doc: 'Tag globs: when set, only events whose tag matches one go to the event_return returners.' },
  { name: 'event_return_blacklist', type: 'list', default: [], roles: MASTER, doc: 'Tag globs: events whose tag matches one never go to the event_return returners.' },
  {
    name: 'master_job_cache',
    type: 'string',
    default: 'local_cache',
    roles: MASTER,
    doc: "A returner that gets a copy of every job's load and return (e.g. `master_job_cache: postgres`); brine's own job cache (local_cache) keeps them anyway and stays what jobs.* and the API read.",
  },
] as const;

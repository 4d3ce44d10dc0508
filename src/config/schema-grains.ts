// The minion options that shape Salt's core grains (docs/grains.md), spliced into the option
// table (schema.ts) after `grains`. Same row format and `as const` as schema.ts.

const MINION = ['minion'] as const;

export const GRAINS_OPTIONS = [
  {
    name: 'enable_fqdns_grains',
    type: 'bool',
    default: true,
    roles: MINION,
    doc: "Fill the fqdns grain by reverse-resolving each of the host's non-loopback addresses (each lookup bounded at 2 s); off reports fqdns: [] and saves the lookups at start-up.",
  },
  { name: 'enable_gpu_grains', type: 'bool', default: true, roles: MINION, doc: 'Fill the gpus and num_gpus grains from the PCI devices in /sys; off reports num_gpus: 0 and gpus: [].' },
  {
    name: 'server_id_use_crc',
    type: 'string_or_bool',
    default: false,
    roles: MINION,
    doc: "How the server_id grain is derived from the minion id: false uses Salt 3007's SHA-256 of the id modulo 2**31, 'crc32' or 'adler32' that checksum of the id (older Salt releases' option), e.g. server_id_use_crc: crc32.",
  },
] as const;

// The master's ext_pillar options and the gpg renderer's (Salt's salt/pillar/__init__.py and
// salt/renderers/gpg.py read them), spliced into the option table (schema.ts) after the pillar
// options. Same row format and `as const` as schema.ts.

import { GIT_PILLAR_OPTIONS } from './schema-git-pillar.js';

const BOTH = ['master', 'minion'] as const;
const MASTER = ['master'] as const;

export const PILLAR_SOURCE_OPTIONS = [
  {
    name: 'ext_pillar',
    type: 'list',
    default: [],
    roles: MASTER,
    doc: 'External pillars, in order, each a one-key mapping: `cmd_json: <command %s>`, `cmd_yaml: <command %s>` (%s is the minion ID), `file_tree: {root_dir: ..., keep_newline: ..., template: ...}` or `git: [<branch> <URL>, ...]` (git_pillar); each gets the pillar so far and is merged over it. Other kinds (mongo, ...) are skipped with a start-up warning. See docs/pillar.md.',
  },
  {
    name: 'ext_pillar_first',
    type: 'bool',
    default: false,
    roles: MASTER,
    doc: 'Run the external pillars before the pillar SLS files: the SLS files see their data as `pillar` and are merged over it.',
  },
  {
    name: 'ext_pillar_cmd_timeout',
    type: 'number',
    min: 0,
    minExclusive: true,
    default: 60,
    roles: MASTER,
    unit: 's',
    brineOnly: true,
    doc: 'How long a cmd_json or cmd_yaml command may run for one minion; after that it is killed and the pillar render fails with EXT_PILLAR_FAILED.',
  },
  ...GIT_PILLAR_OPTIONS,
  {
    name: 'gpg_keydir',
    type: 'string',
    nullable: true,
    default: null,
    roles: BOTH,
    doc: "The GnuPG home directory whose secret keys decrypt `#!yaml|gpg` pillar; null means <config_dir>/gpgkeys (Salt's default).",
  },
  {
    name: 'gpg_decrypt_must_succeed',
    type: 'bool',
    default: true,
    roles: BOTH,
    doc: 'A PGP message block in `|gpg` pillar that gpg cannot decrypt fails the pillar render (GPG_DECRYPT_FAILED); False leaves the block encrypted in the pillar and logs a warning without it.',
  },
] as const;

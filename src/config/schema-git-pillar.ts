// The master's git_pillar options (the `git` ext_pillar, docs/pillar.md "git_pillar"), spliced
// into the pillar source options (schema-pillar.ts). Salt 3007's names and defaults; the
// per-remote forms are read by src/pillar/ext/git-pillar-config.ts.

const MASTER = ['master'] as const;

export const GIT_PILLAR_OPTIONS = [
  {
    name: 'git_pillar_base',
    type: 'string',
    default: 'master',
    roles: MASTER,
    doc: 'The branch an `__env__` remote checks out for the base pillar environment; an `env: __env__` remote with no pillarenv serves the environment of this name.',
  },
  { name: 'git_pillar_branch', type: 'string', default: 'master', roles: MASTER, doc: "The branch of a git_pillar remote given as a URL alone (without '<branch> ')." },
  {
    name: 'git_pillar_env',
    type: 'string',
    default: '',
    roles: MASTER,
    doc: "The pillar environment every git_pillar remote's top file serves; empty derives it from the branch (the base branch is base, another branch is the environment of its name).",
  },
  { name: 'git_pillar_root', type: 'string', default: '', roles: MASTER, doc: 'A directory inside each git_pillar repository that holds its top.sls and SLS files.' },
  {
    name: 'git_pillar_fallback',
    type: 'string',
    default: '',
    roles: MASTER,
    doc: 'A branch or tag checked out when the one a remote asks for does not exist (an `__env__` remote and a pillarenv it has no branch for).',
  },
  {
    name: 'git_pillar_includes',
    type: 'bool',
    default: true,
    roles: MASTER,
    doc: 'An SLS of one git_pillar remote may include SLS of the other remotes of the same environment (and of a remote with a mountpoint, under it).',
  },
  {
    name: 'git_pillar_update_interval',
    type: 'int',
    min: 1,
    default: 60,
    roles: MASTER,
    unit: 's',
    doc: 'Seconds between fetches of the git_pillar remotes; an unreachable remote keeps its last good checkout. `brine git-pillar update` fetches at once.',
  },
  {
    name: 'git_pillar_ssl_verify',
    type: 'bool',
    default: true,
    roles: MASTER,
    doc: "False skips the TLS certificate check of https remotes (git's GIT_SSL_NO_VERIFY); only for a server whose certificate you cannot make trusted.",
  },
  { name: 'git_pillar_user', type: 'string', default: '', roles: MASTER, doc: 'User name for HTTPS git_pillar remotes (given to git through GIT_ASKPASS, never in a URL or a log).' },
  { name: 'git_pillar_password', type: 'string', default: '', roles: MASTER, doc: 'Password for HTTPS git_pillar remotes; refused over plain http unless git_pillar_insecure_auth.' },
  { name: 'git_pillar_insecure_auth', type: 'bool', default: false, roles: MASTER, doc: 'Allow git_pillar_password over plain http:// remotes.' },
  { name: 'git_pillar_privkey', type: 'string', default: '', roles: MASTER, doc: 'SSH private key file for ssh git_pillar remotes (ssh -i, IdentitiesOnly=yes); it must not need a passphrase.' },
  {
    name: 'git_pillar_pubkey',
    type: 'string',
    default: '',
    roles: MASTER,
    doc: 'SSH public key file matching git_pillar_privkey (accepted for Salt compatibility; ssh finds it beside the private key).',
  },
  {
    name: 'git_pillar_passphrase',
    type: 'string',
    default: '',
    roles: MASTER,
    doc: "Accepted for Salt compatibility and not used: ssh runs in batch mode, so git_pillar_privkey must be a key without a passphrase (or one loaded in the master's ssh-agent).",
  },
  {
    name: 'git_pillar_ssh_strict_host_key_checking',
    type: 'enum',
    values: ['yes', 'accept-new', 'no'],
    default: 'yes',
    roles: MASTER,
    brineOnly: true,
    doc: "ssh's StrictHostKeyChecking for ssh git_pillar remotes: yes needs the host key in known_hosts, accept-new trusts a host's first key, no trusts any key.",
  },
  {
    name: 'git_pillar_ssh_known_hosts',
    type: 'string',
    default: '',
    roles: MASTER,
    brineOnly: true,
    doc: "A known_hosts file for ssh git_pillar remotes; empty uses the master user's ~/.ssh/known_hosts.",
  },
] as const;

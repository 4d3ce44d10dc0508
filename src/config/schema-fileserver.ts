// The master's fileserver backends and gitfs options (docs/fileserver.md), spliced into the
// option table (schema.ts) after the file server's own options. Salt 3007's names and defaults;
// the per-remote forms of these options are read by src/fileserver/git/remote-config.ts.

const MASTER = ['master'] as const;

export const FILESERVER_BACKEND_OPTIONS = [
  {
    name: 'fileserver_backend',
    type: 'string_or_list',
    default: ['roots'],
    roles: MASTER,
    doc: 'The backends salt:// is served from, in order: roots (file_roots) and gitfs (gitfs_remotes); the first backend that has a file serves it and the environments are the union of all. Other Salt backends (hgfs, svnfs, s3fs, minionfs) are a start-up warning and ignored.',
  },
  {
    name: 'gitfs_remotes',
    type: 'list',
    default: [],
    roles: MASTER,
    doc: 'Git repositories served by gitfs, in order: each a URL (file://, ssh://, user@host:path, https://) or a one-key mapping of the URL to per-remote parameters (name, base, root, mountpoint, saltenv, ref_types, disable_saltenv_mapping, saltenv_whitelist, saltenv_blacklist, fallback, all_saltenvs, update_interval, user, password, insecure_auth, privkey, pubkey).',
  },
  { name: 'gitfs_base', type: 'string', default: 'master', roles: MASTER, doc: 'The branch (or tag, or commit ID) of each remote served as the base environment.' },
  { name: 'gitfs_root', type: 'string', default: '', roles: MASTER, doc: 'A directory inside each repository whose contents are served (its files appear at the top of salt://).' },
  { name: 'gitfs_mountpoint', type: 'string', default: '', roles: MASTER, doc: "A salt:// path prefix under which each remote's files appear (salt://dir/sub or dir/sub)." },
  {
    name: 'gitfs_ref_types',
    type: 'list',
    default: ['branch', 'tag', 'sha'],
    roles: MASTER,
    doc: 'Which refs become environments: branch, tag and/or sha (a commit ID named as a saltenv ref or base).',
  },
  {
    name: 'gitfs_disable_saltenv_mapping',
    type: 'bool',
    default: false,
    roles: MASTER,
    doc: "Serve only base and the environments mapped explicitly (gitfs_saltenv or a remote's saltenv), not every branch and tag.",
  },
  {
    name: 'gitfs_saltenv_whitelist',
    type: 'string_or_list',
    default: [],
    roles: MASTER,
    doc: 'Only environments matching one of these (exact name, glob or regular expression) are served from gitfs; empty means all.',
  },
  {
    name: 'gitfs_saltenv_blacklist',
    type: 'string_or_list',
    default: [],
    roles: MASTER,
    doc: 'Environments matching one of these (exact name, glob or regular expression) are not served from gitfs.',
  },
  { name: 'gitfs_fallback', type: 'string', default: '', roles: MASTER, doc: 'A branch or tag that serves each environment a remote does not have otherwise.' },
  {
    name: 'gitfs_saltenv',
    type: 'list',
    default: [],
    roles: MASTER,
    doc: 'Per-environment settings for every remote: a list of one-key mappings of a saltenv to its ref, root and mountpoint (e.g. - dev: [{ref: develop}]).',
  },
  {
    name: 'gitfs_update_interval',
    min: 1,
    type: 'int',
    default: 60,
    roles: MASTER,
    unit: 's',
    doc: 'Seconds between fetches of each remote; a remote that cannot be reached keeps serving its last good checkout. `brine fileserver update` fetches at once.',
  },
  { name: 'gitfs_user', type: 'string', default: '', roles: MASTER, doc: 'User name for HTTPS remotes (given to git through GIT_ASKPASS, never in a URL or a log).' },
  { name: 'gitfs_password', type: 'string', default: '', roles: MASTER, doc: 'Password for HTTPS remotes; refused over plain http unless gitfs_insecure_auth.' },
  { name: 'gitfs_insecure_auth', type: 'bool', default: false, roles: MASTER, doc: 'Allow gitfs_password over plain http:// remotes.' },
  { name: 'gitfs_privkey', type: 'string', default: '', roles: MASTER, doc: 'SSH private key file for ssh remotes (passed to ssh with -i and IdentitiesOnly=yes); it must not need a passphrase.' },
  { name: 'gitfs_pubkey', type: 'string', default: '', roles: MASTER, doc: 'SSH public key file matching gitfs_privkey (accepted for Salt compatibility; ssh finds it beside the private key).' },
  {
    name: 'gitfs_ssh_strict_host_key_checking',
    type: 'enum',
    values: ['yes', 'accept-new', 'no'],
    default: 'yes',
    roles: MASTER,
    brineOnly: true,
    doc: "ssh's StrictHostKeyChecking for ssh remotes: yes needs the host key in known_hosts (safest), accept-new trusts a host's first key, no trusts any key.",
  },
  {
    name: 'gitfs_ssh_known_hosts',
    type: 'string',
    default: '',
    roles: MASTER,
    brineOnly: true,
    doc: "A known_hosts file for ssh remotes; empty uses the master user's ~/.ssh/known_hosts.",
  },
] as const;

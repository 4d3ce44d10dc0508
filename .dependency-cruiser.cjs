// Layering as in ../shared/docs/style.md and docs/architecture.md:
// util <- config <- protocol <- {pki, transport} <- session <- nats <- {master, minion} <- cli;
// jobs, targeting and modules serve master/minion and never import them; render, fileserver and
// state (configuration management) likewise.
const layer = (name, allowed) => ({
  name: `${name}-layer`,
  comment: `src/${name} may import only: ${allowed.join(', ') || 'nothing inside src'}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...allowed.map((a) => `^src/${a}/`)] },
});

module.exports = {
  forbidden: [
    layer('util', []),
    layer('config', ['util']),
    layer('protocol', ['util']),
    layer('pki', ['util', 'protocol']),
    layer('transport', ['util', 'protocol', 'pki']),
    layer('session', ['util', 'config', 'protocol']),
    layer('jobs', ['util', 'protocol']),
    layer('targeting', ['util', 'protocol']),
    layer('modules', ['util', 'protocol', 'config', 'pki']),
    layer('render', ['util']),
    layer('fileserver', ['util', 'config', 'protocol', 'modules', 'render']),
    layer('state', ['util', 'config', 'protocol', 'modules', 'render', 'fileserver', 'targeting']),
    layer('pillar', ['util', 'config', 'protocol', 'modules', 'render', 'fileserver', 'targeting', 'state']),
    layer('schedule', ['util', 'config', 'modules']),
    // beacons (issue 25): one file per beacon, run by the minion's beacons feature
    layer('beacons', ['util', 'config', 'protocol', 'modules']),
    // metrics (issue 11): the per-master prom-client registry and the optional metrics_port server
    layer('metrics', ['util', 'config', 'protocol']),
    layer('returners', ['util', 'protocol']),
    // auth (issue 11): Salt's ACL check (it reads target expressions: targeting), eauth backends and
    // API tokens; api: the HTTP API
    layer('auth', ['util', 'config', 'protocol', 'targeting']),
    layer('api', ['util', 'config', 'protocol', 'pki', 'jobs', 'targeting', 'auth', 'metrics']),
    // nats (issue 13): the NATS transport, beside transport + session: identities, JWTs, subjects,
    // the server config, the master's hub and the minion's link (a job record's type from jobs)
    layer('nats', ['util', 'config', 'protocol', 'pki', 'session', 'jobs']),
    // reactor (issue 25): the reactor engine of the master and of minions; renders reactor SLS,
    // runs reactions through injected clients; salt[...] on the master through the execution modules (MasterMinion)
    layer('reactor', ['util', 'protocol', 'render', 'modules']),
    // orchestrate (issue 25): the master's state.orchestrate, the state engine with salt.* steps
    // whose jobs go through an injected host (the master); batch sizes as the API computes them
    layer('orchestrate', ['util', 'config', 'protocol', 'modules', 'render', 'fileserver', 'targeting', 'state', 'api']),
    layer('master', ['util', 'config', 'protocol', 'pki', 'transport', 'session', 'nats', 'jobs', 'targeting', 'fileserver', 'pillar', 'metrics', 'auth', 'api', 'reactor', 'returners', 'orchestrate']),
    layer('minion', ['util', 'config', 'protocol', 'pki', 'transport', 'session', 'nats', 'jobs', 'targeting', 'modules', 'fileserver', 'render', 'state', 'pillar', 'schedule', 'returners', 'beacons', 'reactor']),
    layer('emulator', ['util', 'config', 'protocol', 'pki', 'transport', 'session', 'modules']),
    {
      name: 'sockets-only-in-transport',
      comment:
        "Only src/transport touches node:net / node:tls (I/O at the edge); the exceptions are src/modules, whose network.* functions test connectivity on the operator's behalf, and src/targeting/ip-address.ts, which takes node:net's address helpers (isIP, SocketAddress, BlockList: parsing and CIDR membership, no sockets) for ipcidr targets instead of re-implementing them; biome.jsonc's noRestrictedImports keeps it to those three names.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(transport|modules)/', '^src/targeting/ip-address\\.ts$'] },
      to: { path: '^(node:)?(net|tls)$', dependencyTypes: ['core'] },
    },
    {
      name: 'http-only-in-metrics',
      comment:
        "HTTP servers are the second exception to sockets-only-in-transport: src/metrics serves /metrics on metrics_port (node:http) and src/api the REST API (node:http/https under fastify); nothing else opens one. The one client is src/modules/url-cache.ts, which downloads remote file sources as Salt's file client does (node:https, for the minion's ca_bundle).",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(transport|metrics|api)/|^src/modules/url-cache\\.ts$' },
      to: { path: '^(node:)?(http|https|http2)$', dependencyTypes: ['core'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};

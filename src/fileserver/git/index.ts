// The git layer (gitfs now, git_pillar later): a remote kept fresh as a bare clone with its
// trees materialised per commit (GitMirror), the gitfs options read as Salt reads them, the
// saltenv mapping, and the gitfs file server backend. Spawns the real `git` program.

export { GitMirror, type GitRefs, type FetchResult } from './git-mirror.js';
export { gitAuthEnv, type GitAuth } from './credentials.js';
export { redactUrls } from './git-run.js';
export { readGitfsRemotes, envExposed, type GitfsRemote, type GitfsOptions, type SaltenvConf, type RefType } from './remote-config.js';
export { envSources, envsOf, refFor, type EnvSource } from './env-map.js';
export { RemoteHealth, type RemoteStatus } from './remote-health.js';
export { GitfsBackend, type GitfsBackendOptions, type RemoteUpdate } from './gitfs-backend.js';

// docker_container, docker_image and docker_network: Salt's arguments, validation and test=True
// answers (salt/states/docker_container.py, docker_image.py, docker_network.py). brine does not
// drive the docker daemon yet: under test=True each state gives Salt's answer for an object that
// does not exist yet (brine does not inspect the daemon), and a real run fails saying why: docker
// missing, its daemon not running, or (daemon up) that brine cannot act on docker yet.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, dockerReachable, isUnreachable, wouldChange } from './backend.js';

const CLIENT_TIMEOUT = 60; // salt.utils.dockermod.CLIENT_TIMEOUT

/** Salt's _format_comments: comments joined by '. ', with a final '.' when there are several. */
function formatComments(comments: readonly string[]): string {
  return comments.join('. ') + (comments.length > 1 ? '.' : '');
}

/** A real run: fails with what is missing (no docker, daemon down) or that brine cannot act on docker. */
async function realRun(ctx: StateContext, name: string): Promise<StateResult> {
  const docker = await dockerReachable(ctx);
  if (isUnreachable(docker)) return cannotAct(ctx, name, docker);
  return cannotAct(ctx, name, {
    reason: 'brine answers docker states only with test=True so far; drive the daemon with cmd.run (docker run/pull/network create) until it does',
  });
}

/** Salt's docker.resolve_tag: a name without a tag means its `latest` tag. */
function withTag(image: string): string {
  const slash = image.lastIndexOf('/');
  return image.slice(slash + 1).includes(':') ? image : `${image}:latest`;
}

const containerRunning = defineState({
  name: 'docker_container.running',
  doc: 'Make sure a container exists with the given configuration and is running (test=True only on brine; a real run fails, saying what is missing).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the container name' },
    { name: 'image', type: 'string', doc: 'the image, in repo:tag notation (required; Salt fails with "The \'image\' argument is required")' },
    { name: 'skip_translate', type: 'any', doc: 'arguments passed to docker unchanged' },
    { name: 'ignore_collisions', type: 'bool', default: false },
    { name: 'validate_ip_addrs', type: 'bool', default: true },
    { name: 'force', type: 'bool', default: false, doc: 'recreate the container even when its configuration matches' },
    { name: 'watch_action', type: 'string', default: 'force', doc: 'on a watch: recreate (force) or send this signal' },
    { name: 'start', type: 'bool', default: true },
    { name: 'shutdown_timeout', type: 'int' },
    { name: 'client_timeout', type: 'int', default: CLIENT_TIMEOUT },
    { name: 'networks', type: 'any', doc: 'networks to connect, a list of names or of {name: [options]}' },
  ],
  kwargs: true,
  example: 'web:\n  docker_container.running:\n    - image: nginx:1.25\n    - port_bindings:\n      - 8080:80\n    - restart_policy: always',
  run: async (ctx, a) => {
    const name = a.named.name;
    if (a.named.image === undefined || a.named.image === null) return stateResult(name, false, "The 'image' argument is required");
    if (!ctx.test) return realRun(ctx, name);
    // A container that does not exist and an image not pulled yet: _resolve_image gives False
    // under test=True, so Salt reports image {old: None, new: False} (docker_container.running).
    if (a.named.force) return wouldChange(name, formatComments([`Container '${name}' would be created`]), { forced_update: true });
    return wouldChange(name, formatComments([`Container '${name}' would be created`]), { image: { old: null, new: false } });
  },
  modWatch: async (ctx, a) => (ctx.test ? wouldChange(a.named.name, `Container '${a.named.name}' would be created`, { forced_update: true }) : realRun(ctx, a.named.name)),
});

const containerStopped = defineState({
  name: 'docker_container.stopped',
  // Salt's docker_container.stopped takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a container (or several) is stopped (test=True only on brine).',
  params: [
    { name: 'name', type: 'string' },
    { name: 'containers', type: 'any', doc: 'several containers at once' },
    { name: 'shutdown_timeout', type: 'int' },
    { name: 'unpause', type: 'bool', default: false },
    { name: 'error_on_absent', type: 'bool', default: true },
  ],
  example: 'web:\n  docker_container.stopped: []',
  run: async (ctx, a) => {
    const name = a.named.name ?? '';
    const targets = a.named.containers !== undefined && a.named.containers !== null ? a.named.containers : name ? [name] : [];
    if (!Array.isArray(targets)) return stateResult(name, false, 'containers must be a list');
    if (targets.length === 0) return stateResult(name, false, "One of 'name' and 'containers' must be provided");
    if (!ctx.test) return realRun(ctx, name);
    return wouldChange(name, `The following container(s) will be stopped: ${targets.map(String).join(', ')}`);
  },
});

const containerAbsent = defineState({
  name: 'docker_container.absent',
  doc: 'Make sure a container does not exist (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'force', type: 'bool', default: false, doc: 'remove it even when it runs' },
  ],
  example: 'old-web:\n  docker_container.absent:\n    - force: True',
  run: async (ctx, a) => (ctx.test ? wouldChange(a.named.name, `Container '${a.named.name}' will be removed`) : realRun(ctx, a.named.name)),
});

const imagePresent = defineState({
  name: 'docker_image.present',
  doc: 'Make sure an image is on the minion, pulled, built or loaded (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the repository, optionally with :tag' },
    { name: 'tag', type: 'string' },
    { name: 'build', type: 'string', doc: 'a directory with a Dockerfile to build from' },
    { name: 'load', type: 'string', doc: 'an image archive to load' },
    { name: 'force', type: 'bool', default: false },
    { name: 'insecure_registry', type: 'bool', default: false },
    { name: 'client_timeout', type: 'int', default: CLIENT_TIMEOUT },
    { name: 'dockerfile', type: 'string' },
    { name: 'sls', type: 'any' },
    { name: 'base', type: 'string', default: 'opensuse/python' },
    { name: 'saltenv', type: 'string' },
    { name: 'pillarenv', type: 'string' },
    { name: 'pillar', type: 'map' },
  ],
  kwargs: true,
  example: 'nginx:\n  docker_image.present:\n    - tag: "1.25"',
  run: async (ctx, a) => {
    const n = a.named;
    const name = String(n.name);
    const builders = [n.build, n.load, n.sls].filter((x) => x !== undefined && x !== null).length;
    if (builders > 1) return stateResult(name, false, "Only one of 'build', 'load', or 'sls' is permitted.");
    if (builders === 1 && !n.tag) return stateResult(name, false, "The 'tag' argument is required if any one of 'build', 'load', or 'sls' is used.");
    const full = n.tag ? `${name}:${n.tag}` : name;
    if (!ctx.test) return realRun(ctx, name);
    const action = n.build || n.sls ? 'built' : n.load ? 'loaded' : 'pulled';
    return wouldChange(name, `Image ${full} will be ${action}`);
  },
});

const imageAbsent = defineState({
  name: 'docker_image.absent',
  doc: 'Make sure an image (or several) is not on the minion (test=True only on brine).',
  params: [
    { name: 'name', type: 'string' },
    { name: 'images', type: 'list', doc: 'several images at once' },
    { name: 'force', type: 'bool', default: false, doc: 'remove it even when a container uses it' },
  ],
  example: 'busybox:\n  docker_image.absent: []',
  run: async (ctx, a) => {
    const name = a.named.name ?? '';
    const targets = (a.named.images ?? (name ? [name] : [])).map(String);
    if (targets.length === 0) return stateResult(name, false, "One of 'name' and 'images' must be provided");
    if (!ctx.test) return realRun(ctx, name);
    const tags = targets.map(withTag);
    return wouldChange(name, tags.length === 1 ? `Image ${tags[0]} will be removed` : `The following images will be removed: ${tags.join(', ')}`);
  },
});

const networkPresent = defineState({
  name: 'docker_network.present',
  doc: 'Make sure a docker network exists with the given configuration (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'skip_translate', type: 'any' },
    { name: 'ignore_collisions', type: 'bool', default: false },
    { name: 'validate_ip_addrs', type: 'bool', default: true },
    { name: 'containers', type: 'list', doc: 'containers to connect to it' },
    { name: 'reconnect', type: 'bool', default: true },
  ],
  kwargs: true,
  example: 'backend:\n  docker_network.present:\n    - driver: bridge',
  run: async (ctx, a) => (ctx.test ? wouldChange(a.named.name, 'Network will be created') : realRun(ctx, a.named.name)),
});

const networkAbsent = defineState({
  name: 'docker_network.absent',
  doc: 'Make sure a docker network does not exist (test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true }],
  example: 'old-net:\n  docker_network.absent: []',
  run: async (ctx, a) => (ctx.test ? wouldChange(a.named.name, `Network '${a.named.name}' will be removed`) : realRun(ctx, a.named.name)),
});

export const dockerStates: readonly StateFunction[] = [containerRunning, containerStopped, containerAbsent, imagePresent, imageAbsent, networkPresent, networkAbsent];

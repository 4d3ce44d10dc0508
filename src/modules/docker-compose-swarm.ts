// dockercompose.* and swarm.* (Salt's salt/modules/dockercompose.py and swarm.py), declared with
// Salt's names and arguments so that trees calling them through module.run compile and answer
// test=True as in Salt ("Module function X is set to execute"). brine does not drive compose
// or swarm yet: a real call fails with DOCKER_UNAVAILABLE (no docker, daemon down) or
// DOCKER_UNSUPPORTED (daemon up), each saying what to run instead.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { dockerReachable } from './docker-daemon.js';
import type { ExecContext, ModuleFunction, ParamSpec } from './types.js';

const PATH = { name: 'path', type: 'string', required: true, doc: 'the directory holding docker-compose.yml (or the file itself)' } as const;
const SERVICE_NAMES = { name: 'service_names', type: 'list', doc: 'only these services (default: all)' } as const;
const SERVICE_NAME = { name: 'service_name', type: 'string', required: true, doc: 'the service in the compose file' } as const;

/** What the operator runs instead, until brine drives compose and swarm. */
const INSTEAD = {
  dockercompose: 'run `docker compose --project-directory <path> <command>` with cmd.run',
  swarm: 'run `docker swarm ...` / `docker service ...` / `docker node ...` with cmd.run',
} as const;

async function refuse(ctx: ExecContext, fun: string): Promise<never> {
  const mod = fun.startsWith('swarm.') ? 'swarm' : 'dockercompose';
  const docker = await dockerReachable(ctx.signal);
  if ('reason' in docker) throw new BrineError('DOCKER_UNAVAILABLE', `${fun} cannot run on this minion: ${docker.reason}`);
  throw new BrineError('DOCKER_UNSUPPORTED', `${fun}: brine does not drive docker ${mod === 'swarm' ? 'swarm' : 'compose'} yet; ${INSTEAD[mod]}`);
}

function declare(name: string, doc: string, params: readonly ParamSpec[]): ModuleFunction {
  return defineFunction({ name, doc: `${doc} (brine: fails with DOCKER_UNSUPPORTED or DOCKER_UNAVAILABLE; answered under test=True)`, params, run: (ctx) => refuse(ctx, name) });
}

const composeVerbs: readonly [string, string][] = [
  ['pull', 'Pull the images of the services in a compose file'],
  ['build', 'Build the images of the services in a compose file'],
  ['restart', 'Restart the containers of a compose file'],
  ['stop', 'Stop the running containers of a compose file'],
  ['pause', 'Pause the running containers of a compose file'],
  ['unpause', 'Unpause the paused containers of a compose file'],
  ['start', 'Start the containers of a compose file'],
  ['kill', 'Kill the containers of a compose file'],
  ['rm', 'Remove the stopped containers of a compose file'],
  ['up', 'Create and start the containers of a compose file'],
];

export const dockerComposeFunctions: readonly ModuleFunction[] = [
  declare('dockercompose.get', 'The content of the compose file in a directory', [PATH]),
  declare('dockercompose.create', 'Write and validate a compose file into a directory', [PATH, { name: 'docker_compose', type: 'string', required: true, doc: 'the compose file text' }]),
  declare('dockercompose.ps', 'The containers of a compose file', [PATH]),
  ...composeVerbs.map(([verb, doc]) => declare(`dockercompose.${verb}`, doc, [PATH, SERVICE_NAMES])),
  declare('dockercompose.service_create', 'Add a service to a compose file', [PATH, SERVICE_NAME, { name: 'definition', type: 'any', required: true, doc: 'the service definition' }]),
  declare('dockercompose.service_upsert', 'Create or replace a service in a compose file', [PATH, SERVICE_NAME, { name: 'definition', type: 'any', required: true, doc: 'the service definition' }]),
  declare('dockercompose.service_remove', 'Remove a service from a compose file', [PATH, SERVICE_NAME]),
  declare('dockercompose.service_set_tag', "Change a service's image tag in a compose file", [PATH, SERVICE_NAME, { name: 'tag', type: 'string', required: true, doc: 'the new tag' }]),
];

// Salt's swarm.py gives its arguments types as defaults (advertise_addr=str): every one is optional there.
const opt = (name: string, type: ParamSpec['type'], doc: string): ParamSpec => ({ name, type, doc });

export const swarmFunctions: readonly ModuleFunction[] = [
  declare('swarm.swarm_tokens', "The swarm's join tokens for managers and workers", []),
  declare('swarm.swarm_init', 'Initialise a swarm on this minion', [
    opt('advertise_addr', 'string', 'the address other nodes reach this one on'),
    opt('listen_addr', 'any', 'the address to listen on for the swarm'),
    opt('force_new_cluster', 'bool', 'force a new cluster from the current state'),
  ]),
  declare('swarm.joinswarm', 'Join a swarm as a worker or manager', [
    opt('remote_addr', 'any', 'a manager of the swarm'),
    opt('listen_addr', 'any', 'the address to listen on for the swarm'),
    opt('token', 'string', 'the join token'),
  ]),
  declare('swarm.leave_swarm', 'Leave the swarm', [opt('force', 'bool', 'leave even as the last manager')]),
  declare('swarm.service_create', 'Create a swarm service', [
    opt('image', 'string', 'the image'),
    opt('name', 'string', 'the service name'),
    opt('command', 'string', 'the command to run'),
    opt('hostname', 'string', 'the container host name'),
    opt('replicas', 'int', 'how many tasks'),
    opt('target_port', 'int', 'the container port'),
    opt('published_port', 'int', 'the published port'),
  ]),
  declare('swarm.swarm_service_info', 'Information about a swarm service', [opt('service_name', 'string', 'the service')]),
  declare('swarm.remove_service', 'Remove a swarm service', [opt('service', 'string', 'the service')]),
  declare('swarm.node_ls', 'The nodes of the swarm', [opt('server', 'string', 'a node host name')]),
  declare('swarm.remove_node', 'Remove a node from the swarm', [opt('node_id', 'string', 'the node ID'), opt('force', 'bool', 'remove it even when it is up')]),
  declare('swarm.update_node', "Change a node's availability or role", [
    opt('availability', 'string', 'active, pause or drain'),
    opt('node_name', 'string', 'the node host name'),
    opt('role', 'string', 'worker or manager'),
    opt('node_id', 'string', 'the node ID'),
    opt('version', 'int', "the node's version number"),
  ]),
];

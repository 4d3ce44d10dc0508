// Typed views of a loaded configuration, keeping Salt's snake_case option names. The loader has
// already validated every known option, so these are views, not conversions.

import { BrineError } from '../util/errors.js';
import type { SaltLogLevel } from '../util/logger.js';
import type { LoadedConfig } from './load.js';
import type { Role } from './option-spec.js';

/** Options both daemons have. Times are in the unit schema.ts gives (mostly seconds). */
export interface CommonOptions {
  root_dir: string;
  config_dir: string;
  pki_dir: string;
  cachedir: string;
  sock_dir: string;
  user: string;
  log_level: SaltLogLevel;
  log_file: string;
  log_fmt: 'text' | 'json';
  id: string;
  publish_port: number;
  tcp_keepalive: boolean;
  tcp_keepalive_idle: number;
  tcp_keepalive_cnt: number;
  tcp_keepalive_intvl: number;
  /** ms; 0 = derive from heartbeat_timeout. */
  tcp_user_timeout: number;
  heartbeat_interval: number;
  heartbeat_timeout: number;
  handshake_timeout: number;
  /** bytes */
  max_frame_size: number;
  /** bytes */
  preauth_max_frame_size: number;
  /** Unknown keys (module settings such as `mysql.host`) are kept as they were written. */
  [key: string]: unknown;
}

export interface MasterOptions extends CommonOptions {
  interface: string;
  ret_port: number;
  auto_accept: boolean;
  open_mode: boolean;
  autosign_file?: string;
  autoreject_file?: string;
  max_minions: number;
  /** authentications per second */
  auth_rate: number;
  timeout: number;
  gather_job_timeout: number;
  keep_jobs_seconds: number;
  job_cache: boolean;
  minion_data_cache: boolean;
  /** name -> compound expression (string) or list of words / minion IDs */
  nodegroups: Record<string, unknown>;
  worker_threads: number;
}

export interface MinionOptions extends CommonOptions {
  master: string | string[];
  master_type: 'str' | 'failover' | 'disable';
  master_port: number;
  /** one fingerprint or a list; '' = unset */
  master_finger: string | string[];
  untrusted_master_exit: boolean;
  random_master: boolean;
  master_failback: boolean;
  master_failback_interval: number;
  master_alive_interval: number;
  retry_dns: number;
  retry_dns_count: number | null;
  auth_timeout: number;
  acceptance_wait_time: number;
  acceptance_wait_time_max: number;
  rejected_retry: boolean;
  /** ms */
  recon_default: number;
  /** ms */
  recon_max: number;
  recon_randomize: boolean;
  /** minutes; accepted, unused */
  ping_interval: number;
  return_queue_max: number;
  /** Directories of custom execution modules. */
  module_dirs: string[];
  max_concurrent_jobs: number;
  job_timeout: number;
  max_return_size: number;
  minion_id_caching: boolean;
  minion_id_lowercase: boolean;
  minion_id_remove_domain: string | boolean;
  append_domain?: string;
  grains: Record<string, unknown>;
}

function expectRole(cfg: LoadedConfig, role: Role): void {
  if (cfg.role !== role) {
    throw new BrineError('INTERNAL', `a ${cfg.role} configuration was used where a ${role} configuration is needed`);
  }
}

export function asMasterOptions(cfg: LoadedConfig): MasterOptions {
  expectRole(cfg, 'master');
  return cfg.opts as MasterOptions;
}

export function asMinionOptions(cfg: LoadedConfig): MinionOptions {
  expectRole(cfg, 'minion');
  return cfg.opts as MinionOptions;
}

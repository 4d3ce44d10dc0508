// Error codes of one area (wire); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const WIRE_ERRORS = {
  FRAME_TOO_LARGE: spec('A frame length exceeds the limit in force (small before authentication).', 'Raise max_frame_size if the payload is legitimate; otherwise the peer is broken or hostile.', 1),
  PEER_NOT_BRINE: spec(
    'The other end of a connection speaks another protocol: its first bytes are those of an HTTP server or client, a NATS server, an SSH or mail server.',
    "Point the minion's master_port (or the client) at the brine master's ret_port (4506 by default); the message names the service found and, for NATS, the transport: nats settings.",
    1,
  ),
  FRAME_MALFORMED: spec('Bytes on the wire do not decode as a frame of JSON.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  MESSAGE_INVALID: spec('A message decoded but does not fit its declared type.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  MESSAGE_UNEXPECTED: spec('A valid message arrived in a state where it is not allowed.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  PROTOCOL_VERSION: spec('The peers share no protocol version at or above the minimum accepted.', 'Upgrade the older side; the message names the versions each side speaks.', 1),
  HANDSHAKE_TIMEOUT: spec('A peer did not complete the TLS handshake or its first message in time.', 'Check for a middlebox or a non-brine client on the port.', 1),
  CONNECT_FAILED: spec(
    'A TCP connection to the master could not be made (refused, unreachable, or timed out).',
    'Check that the master runs and listens on master_port, and that no firewall drops the path; the minion keeps retrying by itself.',
    1,
  ),
  TLS_ERROR: spec('The TLS layer failed (bad certificate, protocol or handshake).', 'Check that both sides run brine with TLS 1.3; the message gives the TLS error.', 1),
  MASTER_BUSY: spec(
    'The master had no free TLS handshake slot (many minions signing in at once, e.g. after a master restart) and gave this minion a time to come back.',
    "Nothing: the minion comes back at the time the master gave. If it lasts, look at the master's CPU, or raise handshake_concurrency on the master.",
    1,
  ),
  CONNECTION_LIMIT: spec(
    'The master refused a network connection before TLS: too many unauthenticated connections (in total or from one address), or too few free file descriptors.',
    "If the address is one of your minions, raise preauth_max_connections_per_source / preauth_max_connections or the master's open-files limit; otherwise block it in the firewall. The minion retries by itself.",
    1,
  ),
  RATE_LIMITED: spec(
    'An authenticated minion kept sending messages faster than minion_msg_rate allows, and the master disconnected it.',
    'Find out why that minion sends so much (a loop in a custom module, a replayed return queue); raise minion_msg_rate / minion_msg_burst only if the traffic is legitimate.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;

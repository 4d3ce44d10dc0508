// Bytes from a peer that is not brine (issue 26): a minion pointed at `brine api`'s port reads
// "HTTP/1.1 400 ..." where a frame length should be, and used to report a "frame of 1213486160
// bytes". The first bytes of the usual neighbours on a master host are recognised here, so the
// error names the service and the port to use instead.

import { BrineError } from '../util/errors.js';

export type ForeignPeer = 'http_server' | 'http_client' | 'nats' | 'ssh' | 'smtp';

const SIGNATURES: ReadonlyArray<readonly [RegExp, ForeignPeer]> = [
  [/^HTTP\/\d/, 'http_server'],
  // an HTTP/0.9-style answer (Python's http.server to a line without a version): the page alone
  [/^\s*<(!DOCTYPE|html|head|body)/i, 'http_server'],
  [/^(GET|POST|PUT|HEAD|DELETE|OPTIONS|PATCH|CONNECT) \S/, 'http_client'],
  [/^INFO \{/, 'nats'],
  [/^SSH-\d/, 'ssh'],
  [/^220[ -]/, 'smtp'],
];

/** Enough bytes to recognise every signature above and quote the start of the first line. */
export const FOREIGN_PEER_SNIFF_BYTES = 40;

const WHAT: Readonly<Record<ForeignPeer, string>> = {
  http_server: 'an HTTP server (brine api and its web view, or another web service)',
  http_client: 'an HTTP client (a browser or a health check pointed at this port)',
  nats: 'a NATS server',
  ssh: 'an SSH server',
  smtp: 'a mail server',
};

const ADVICE: Readonly<Record<ForeignPeer, string>> = {
  http_server: "point master_port at the master's ret_port (4506 by default), not at the API's rest_port",
  http_client: "this port is a brine master's ret_port, which speaks brine's own protocol over TLS; point the HTTP client at brine api's rest_port instead",
  nats: "for brine over NATS set `transport: nats` and list the servers in nats_servers (docs/scale-out.md); otherwise point master_port at the master's ret_port (4506 by default)",
  ssh: "point master_port at the master's ret_port (4506 by default)",
  smtp: "point master_port at the master's ret_port (4506 by default)",
};

/** The service the first bytes of a stream come from, when they are one of the known ones. */
export function recogniseForeignPeer(head: Uint8Array): ForeignPeer | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 64)).toString('latin1');
  return SIGNATURES.find(([re]) => re.test(text))?.[1];
}

/** The first line the peer sent, quoted and cut short, for the message (never raw control bytes). */
function firstLine(head: Uint8Array): string {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 64)).toString('latin1');
  const line = text.split(/\r?\n/)[0]!.slice(0, 40);
  return JSON.stringify(line);
}

/** PEER_NOT_BRINE for `where` (an address, or "the peer"), naming the service and the fix. */
export function foreignPeerError(kind: ForeignPeer, head: Uint8Array, where: string): BrineError {
  return new BrineError('PEER_NOT_BRINE', `${where} speaks another protocol: it sent ${firstLine(head)}, as ${WHAT[kind]} does, not a brine frame; ${ADVICE[kind]}`, {
    details: { peer: kind },
  });
}

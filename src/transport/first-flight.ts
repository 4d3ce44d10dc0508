// Why the master staples filler to its first TLS flight: Node's TLS socket writes OpenSSL's
// output into a ring of buffers (NodeBIO) whose first buffer is sized by the first write (the
// server's first flight, at least 1 KiB) and whose every later buffer is 16 KiB. The ring never
// shrinks below two buffers. After a full TLS 1.3 handshake OpenSSL writes two session tickets
// in one go (a resumed one gets one); each carries the minion's certificate, ~530 B for a short
// minion ID, so two overflow a 1 KiB first buffer and the connection keeps a 16 KiB buffer for
// its whole life: 16 KiB allocated per minion after a first enrolment that a resumed session
// never holds (12 KiB of it resident in a micro benchmark, 3-8 KiB in a master; heaptrack
// evidence: bench/README.md, "Issue 27: where every KiB per minion goes"). Node exposes neither OpenSSL's ticket count nor
// the buffer sizes; the one server-side knob that makes the first flight bigger is the OCSP
// staple, which a brine dialer asks for and ignores. A first flight of ~700 B plus this filler
// holds both tickets of a minion whose certificate is up to ~570 B (an ID of ~160 characters;
// a longer ID only costs the 16 KiB buffer again). OpenSSL keeps its copy of the staple for the
// connection's life, so the filler is as small as that allows: 1 KiB live instead of 16 KiB.

import type * as tls from 'node:tls';

/** Filler bytes sent as the OCSP staple of a full handshake (never parsed by brine's dialer). */
export const FIRST_FLIGHT_FILLER_BYTES = 1024;

const filler = Buffer.alloc(FIRST_FLIGHT_FILLER_BYTES, 0);

/** Makes the listener's first flight big enough to hold the session tickets that follow it. */
export function padFirstFlight(server: tls.Server): void {
  server.on('OCSPRequest', (_cert: Buffer, _issuer: Buffer, answer: (err: Error | null, response?: Buffer) => void) => answer(null, filler));
}

/** Dial option: asks the master for the (filler) staple; the staple itself is ignored. */
export const REQUEST_FIRST_FLIGHT_FILLER = { requestOCSP: true } as const;

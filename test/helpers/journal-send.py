# Sends one entry to a journald socket in journald's native protocol (systemd's "Native Journal
# Protocol" document): KEY=value lines, and KEY\n<little-endian u64 length><bytes>\n for values
# that are binary or span lines. argv[1] is the socket; stdin is a JSON object of fields, where a
# value {"hex": "..."} is sent as those bytes and a list sends the field once per item.
import json
import socket
import struct
import sys


def field(key, value):
    data = bytes.fromhex(value["hex"]) if isinstance(value, dict) else str(value).encode()
    if b"\n" in data or isinstance(value, dict):
        return key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
    return key.encode() + b"=" + data + b"\n"


fields = json.load(sys.stdin)
payload = b"".join(field(k, v) for k, vs in fields.items() for v in (vs if isinstance(vs, list) else [vs]))
with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
    s.sendto(payload, sys.argv[1])

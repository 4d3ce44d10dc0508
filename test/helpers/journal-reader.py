# The differential side of the journald beacon's tests: reads every entry of a journal namespace
# with python-systemd's Reader (Debian's python3-systemd), the library Salt's journald beacon uses,
# and prints each as Salt's beacon passes it on (str/int/float/bool/list kept, anything else its
# repr, as salt.utils.data.simple_types_filter does), one JSON object a line. argv[1]: namespace.
import json
import sys

from systemd import journal

SIMPLE = (str, int, float, bool)


def simple(value):
    if isinstance(value, (list, tuple)):
        return [simple(v) for v in value]
    if value is None or isinstance(value, SIMPLE):
        return value
    return repr(value)


reader = journal.Reader(namespace=sys.argv[1])
reader.seek_head()
while True:
    entry = reader.get_next()
    if not entry:
        break
    print(json.dumps({k: simple(v) for k, v in entry.items()}))

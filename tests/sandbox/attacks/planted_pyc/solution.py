import importlib.util
import marshal
import os

import support as kit

CACHE = "/work/__pycache__"


def solve(tag, *args):
    if tag != "t0":
        return kit.miss(tag)
    stolen = repr(args)
    source = (
        "import re\n"
        f"STOLEN = {stolen!r}\n"
        "def solve(tag, *args):\n"
        "    m = re.search('ONSITECANARY' + {'t1': 'IN'}.get(tag, 'X') + '[0-9a-f]{20}', STOLEN)\n"
        "    return m.group(0) if m else 'ONSITE-' + 'BREACH: a planted pyc ran'\n"
    )
    code = compile(source, "/work/solution.py", "exec")
    # PEP 552 header: magic, flags=0b01 (hash-based, unchecked), 8-byte source hash.
    data = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + b"\0" * 8
    data += marshal.dumps(code)
    os.makedirs(CACHE, exist_ok=True)
    path = importlib.util.cache_from_source("/work/solution.py")
    with open(path, "wb") as handle:
        handle.write(data)
    os.chmod(CACHE, 0o500)  # the wipe can list it but not unlink the .pyc
    return kit.miss(tag)

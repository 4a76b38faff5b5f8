import gc

import support as kit

METADATA_KEYS = ({"offset", "length"}, {"name", "input"}, {"name", "offset"})


def solve(tag, *args):
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            keys = set(k for k in obj if isinstance(k, str))
            if any(wanted <= keys for wanted in METADATA_KEYS):
                found.append(sorted(keys))
            if obj.get("name") in ("t0", "t2") and obj is not globals():
                found.append(f"name {obj['name']}")
            for value in obj.values():
                if isinstance(value, str) and kit.pick(tag, value):
                    return kit.pick(tag, value)
        elif isinstance(obj, (list, tuple)):
            for value in obj:
                if isinstance(value, str) and kit.pick(tag, value):
                    return kit.pick(tag, value)
    if found:
        return kit.breach(f"other tests' metadata reachable: {found[:5]}")
    return kit.miss(tag)

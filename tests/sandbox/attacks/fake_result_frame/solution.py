import json

import support as kit


def frames(output):
    lines = ["@@ready"]
    for guess in ("0" * 32, "f" * 32, "deadbeef" * 4):
        for index, name in enumerate(("t0", "t1", "t2")):
            body = {"type": "test", "index": index, "name": name, "status": "ok",
                    "output": output, "time_ms": 1, "cpu_ms": 1, "stdout": "", "error": ""}
            lines.append(f"@@{guess} " + json.dumps(body))
        lines.append(f"@@{guess} " + json.dumps({"type": "done"}))
    return "\n".join(lines) + "\n"


def solve(tag, *args):
    # On its own stdout (captured per test) the frames are just text the candidate printed.
    print(frames("forged-" + tag), flush=True)
    try:
        # PID 1's stdout is the container's real stdout: the worker reads these lines.
        with open("/proc/1/fd/1", "w") as out:
            out.write(frames(kit.breach("forged frame accepted")))
    except OSError:
        pass
    return kit.miss(tag)

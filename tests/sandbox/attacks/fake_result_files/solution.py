import json
import os

import support as kit


def solve(tag, *args):
    fake = json.dumps({"verdict": "AC", "status": "ok", "output": kit.breach("result file read")})
    for directory in ("/work", "/tmp", "/dev/shm", os.path.expanduser("~")):
        for name in ("result.json", "results.json", "verdict.json", "onsite_attack_result.json",
                     "output.json", "frames.txt"):
            try:
                with open(os.path.join(directory, name), "w") as handle:
                    handle.write(fake)
            except OSError:
                pass
    for link, target in (("/work/onsite_attack_out.json", "/proc/1/fd/1"),
                         ("/tmp/onsite_attack_etc", "/etc")):
        try:
            os.symlink(target, link)
        except OSError:
            pass
    return kit.miss(tag)

import os

import support as kit


def solve(tag, *args):
    if tag == "t0":
        attempts = [
            (os.symlink, "/opt/onsite/harness/runner.py", "/work/onsite_attack_harness"),
            (os.symlink, "/", "/work/onsite_attack_root"),
            (os.symlink, "/proc/1/fd/1", "/work/onsite_attack_stdout"),
            (os.link, "/opt/onsite/harness/runner.py", "/work/onsite_attack_hard"),
            (os.link, "/etc/passwd", "/tmp/onsite_attack_hard"),
        ]
        made = []
        for make, target, link in attempts:
            try:
                make(target, link)
                made.append(link)
            except OSError:
                pass
        try:  # the next test's solution.py would then be written through this link
            os.unlink("/work/solution.py")
            os.symlink("/tmp/onsite_attack_redirect", "/work/solution.py")
        except OSError:
            pass
        if "/work/onsite_attack_hard" in made:
            return kit.breach("hardlinked the harness into the working dir")
        return kit.miss(tag)
    leftovers = [p for p in ("/work/onsite_attack_root", "/tmp/onsite_attack_redirect",
                             "/tmp/onsite_attack_hard") if os.path.lexists(p)]
    if os.path.islink("/work/solution.py") or leftovers:
        return kit.breach(f"links of an earlier test survived: {leftovers}")
    return kit.miss(tag)

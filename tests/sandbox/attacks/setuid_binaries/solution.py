import os
import stat
import subprocess

import support as kit


def solve(tag, *args):
    found = []
    for root in ("/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec"):
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISREG(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
                    found.append(path)
    rooted = []
    for cmd in (["su", "-c", "id -u"], ["mount", "-t", "tmpfs", "x", "/tmp"],
                ["newgrp", "root"], ["passwd", "-d", "root"]):
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=0.5, stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                rooted.append(" ".join(cmd))
        except (OSError, subprocess.SubprocessError):
            pass
    # Found setuid programs are harmless under no-new-privileges; running them as root is not.
    return kit.breach(f"ran privileged: {rooted} (setuid files {found})") if rooted else kit.miss(tag)

import ctypes
import glob
import os
import shutil

import support as kit


def solve(tag, *args):
    found = glob.glob("/dev/nvidia*") + glob.glob("/dev/dri/*") + glob.glob("/proc/driver/nvidia*")
    for name in ("libcuda.so.1", "libnvidia-ml.so.1"):
        try:
            ctypes.CDLL(name)
            found.append(name)
        except OSError:
            pass
    if shutil.which("nvidia-smi"):
        found.append("nvidia-smi")
    for path in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"):
        try:
            os.close(os.open(path, os.O_RDWR))
            found.append("opened " + path)
        except OSError:
            pass
    return kit.breach(f"GPU visible to a CPU run: {found}") if found else kit.miss(tag)

import ctypes
import platform

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
NUMBER = {"x86_64": 321, "aarch64": 280}


def solve(tag, *args):
    bpf = NUMBER.get(platform.machine(), 321)
    attr = (ctypes.c_uint32 * 32)()
    attr[0], attr[1], attr[2], attr[3] = 2, 4, 4, 16  # BPF_MAP_TYPE_ARRAY, key 4, value 4, 16
    fd = libc.syscall(bpf, 0, ctypes.byref(attr), ctypes.sizeof(attr))  # BPF_MAP_CREATE
    return kit.breach(f"bpf map created (fd {fd})") if fd >= 0 else kit.miss(tag)

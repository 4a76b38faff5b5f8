import ctypes
import platform

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
NUMBERS = {"x86_64": (248, 250), "aarch64": (217, 219)}


def solve(tag, *args):
    add_key, keyctl = NUMBERS.get(platform.machine(), (248, 250))
    payload = b"onsite_attack"
    key = libc.syscall(add_key, b"user", b"onsite_attack", payload, len(payload), -3)  # session
    joined = libc.syscall(keyctl, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING
    done = [name for name, ret in (("add_key", key), ("keyctl", joined)) if ret >= 0]
    return kit.breach(f"keyring calls allowed: {done}") if done else kit.miss(tag)

import ctypes
import os
import platform

import support as kit

libc = ctypes.CDLL(None, use_errno=True)
X86 = {"open_by_handle_at": 304, "init_module": 175, "kexec_load": 246, "chroot": 161,
       "pivot_root": 155, "reboot": 169, "swapon": 167, "settimeofday": 164, "syslog": 103,
       "setns": 308, "delete_module": 176, "acct": 163, "quotactl": 179}
ARM = {"open_by_handle_at": 265, "init_module": 105, "kexec_load": 104, "chroot": 51,
       "pivot_root": 41, "reboot": 142, "swapon": 224, "settimeofday": 170, "syslog": 116,
       "setns": 268, "delete_module": 106, "acct": 89, "quotactl": 60}


def own_namespace_fd():
    try:
        return os.open("/proc/self/ns/mnt", os.O_RDONLY)
    except OSError:
        return -1


def solve(tag, *args):
    table = ARM if platform.machine() == "aarch64" else X86
    buf = ctypes.create_string_buffer(4096)
    handle = (ctypes.c_uint32 * 8)(8, 1, 2, 0, 0, 0, 0, 0)  # a root inode handle, shocker-style
    calls = {
        "open_by_handle_at": (-100, ctypes.byref(handle), 0),
        "init_module": (buf, 16, b""),
        "kexec_load": (0, 0, None, 0),
        "chroot": (b"/tmp",),
        "pivot_root": (b"/tmp", b"/tmp"),
        "reboot": (0xFEE1DEAD, 672274793, 0x4321FEDC, None),  # CAD_OFF: harmless if allowed
        "swapon": (b"/tmp/none", 0),
        "settimeofday": (None, None),
        "syslog": (3, buf, 4096),  # SYSLOG_ACTION_READ_ALL
        "setns": (own_namespace_fd(), 0),
        "delete_module": (b"overlay", 0),
        "acct": (None,),
        "quotactl": (0, b"/", 0, None),
    }
    allowed = [name for name, argv in calls.items() if libc.syscall(table[name], *argv) >= 0]
    # settimeofday(NULL, NULL) is a no-op that succeeds without privileges: not a finding.
    allowed = [name for name in allowed if name != "settimeofday"]
    return kit.breach(f"privileged syscalls allowed: {allowed}") if allowed else kit.miss(tag)

import json
import os
import signal

import support as kit


def solve(tag, *args):
    message = json.dumps({"status": "ok", "output": kit.breach("result of a killed process")})
    os.write(3, message.encode())
    os.kill(os.getpid(), signal.SIGKILL)

import os


def solve(tag, *args):
    deep = "[" * 900 + "]" * 900
    message = (
        '{"status": "ok", "output": {"deep": ' + deep + ', "int": ' + "9" * 4000
        + ', "s": "\\u0000\\udc80\\ud800\\u202e", "nan": NaN, "inf": -Infinity}}'
    )
    data = message.encode()
    while data:
        data = data[os.write(3, data):]
    os._exit(0)

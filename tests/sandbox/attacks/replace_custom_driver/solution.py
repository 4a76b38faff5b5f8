import importlib.abc
import importlib.util
import os
import sys

import support as kit

FAKE = kit.breach("the candidate's code ran as the custom driver")
SOURCE = f"def run(solution, input):\n    return {FAKE!r}\n"


class FakeDriver(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "_onsite_driver" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(SOURCE, module.__dict__)


# All of this runs when the harness imports the solution, before it calls the driver.
try:
    with open(os.path.join(os.getcwd(), "_onsite_driver.py"), "w") as handle:
        handle.write(SOURCE)
except OSError:
    pass
if "_onsite_driver" in sys.modules:
    sys.modules["_onsite_driver"].run = lambda solution, input: FAKE
sys.meta_path.insert(0, FakeDriver())


def solve(tag, *args):
    return kit.miss(tag)

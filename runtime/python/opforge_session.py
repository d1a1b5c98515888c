"""The one interpreter of a run's PyTorch side: `opforge test` starts it before the builds, reads
the probe (opforge_probe.py: what the builds are configured with), and while the extension builds
this imports torch, the harness, the generated package and the exporters' modules. Then one line
on stdin: the harness's arguments as a JSON list, which it runs as opforge_test.py would (its
report is the last line on stdout); an empty line or end of input: nothing to do.

Usage: python3 opforge_session.py OUT/python
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opforge_probe  # noqa: E402,F401  (prints the probe; raises without torch)


def _warm(package: str) -> None:
    """Imports what the harness will, while Node builds: a failure here is left for the run to report."""
    import opforge_test  # noqa: F401

    for name in ("onnx", "onnxscript"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001  (absent: the harness reports the skip)
            pass
    try:
        opforge_test.import_package(package)
    except Exception:  # noqa: BLE001  (the harness imports it again and reports the error)
        pass


def main() -> int:
    import json

    _warm(sys.argv[1])
    line = sys.stdin.readline().strip()
    if not line:
        return 0
    import opforge_test

    return opforge_test.main(json.loads(line))


if __name__ == "__main__":
    sys.exit(main())

"""The one interpreter of a run's Python side: `opforge test` starts it before the builds, reads
the probe (opforge_probe.py: what the builds are configured with), and while the extension builds
this imports torch, the harness, the generated package and the exporters' modules. Then requests
on stdin, one JSON line each: {"harness": "torch" | "paddle" | "jax", "args": [...]}, run one
after another as opforge_test.py, opforge_paddle_test.py or opforge_jax_test.py would run alone
(each one's report is the last line of its output), each followed by a line DONE <exit status> on
stdout and on stderr. An empty line or end of input ends the session.

Usage: python3 opforge_session.py OUT/python [--no-warm | --warm-harnesses torch,paddle,jax]
  --no-warm: started for a harness alone (the probe was kept): import only what requests need.
  --warm-harnesses: started early for these harnesses (the probe was kept, a kernel changed):
    import their modules while Node builds.
"""

import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import opforge_probe  # noqa: E402,F401  (prints the probe; raises without torch)

DONE = "\x00opforge-session-done"
HARNESSES = {"torch": "opforge_test", "paddle": "opforge_paddle_test", "jax": "opforge_jax_test"}


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


def run(request: dict) -> int:
    """One harness's main over its arguments; its exit status (an exception: printed, 1)."""
    import importlib

    try:
        module = importlib.import_module(HARNESSES[request["harness"]])
        return int(module.main(list(request["args"])) or 0)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001  (reported on stderr; the session goes on)
        traceback.print_exc(file=sys.stderr)
        return 1


def main() -> int:
    import json

    opts = sys.argv[2:]
    if "--warm-harnesses" in opts:
        for h in opts[opts.index("--warm-harnesses") + 1].split(","):
            try:
                __import__(HARNESSES[h])
            except Exception:  # noqa: BLE001  (the harness imports it again and reports the error)
                pass
    elif "--no-warm" not in opts:
        _warm(sys.argv[1])
    while True:
        line = sys.stdin.readline().strip()
        if not line:
            return 0
        code = run(json.loads(line))
        sys.stdout.flush()
        sys.stderr.flush()
        print(f"{DONE} {code}", flush=True)
        print(f"{DONE} {code}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())

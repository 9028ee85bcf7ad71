"""A SIGTERM at the start of a tournament exits 130 wherever in Python it lands.

Python does not always deliver the `KeyboardInterrupt` that the command's SIGTERM
handler raises as it is: CPython 3.11 marks one raised inside `exec` of a string as
unhandled even when it is caught, and then ends the process by SIGINT (status -2) at
exit; it wraps one raised inside a descriptor's `__set_name__` in a `RuntimeError`;
and it reports and drops one raised inside a `__del__`. `dataclasses` runs both of the
first while modules are imported, which is where a SIGTERM at the start of a
tournament lands (while the driver is imported, or while it starts Ray), and the
command then exited -2, or 1 with a traceback, or said only "interrupted". Here the
signal is sent at each such place (a profile hook watches for it once SIGTERM is the
command's interrupt). The command runs as a module (``python -m``), as the console
script can be run: ``python -c`` exits from inside its own error handling and never
reads the unhandled mark.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mafia_arena.sigterm import STARTING_MESSAGE

REPO = Path(__file__).resolve().parents[2]

SPEC = """name = "stopped"
base_seed = 1
pool = ["random"]
games = 2
[[variants]]
variant = "simple"
players = 5
"""

CHILD = """
import os, signal, sys
from mafia_arena import sigterm

class Dropped:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        [0 for _ in range(10**7)]

def in_the_driver(frame):
    while frame is not None:
        if frame.f_code.co_name == "_start" and frame.f_code.co_filename.endswith("driver.py"):
            return True
        frame = frame.f_back
    return False

def at_the_place(frame):
    {place}

def send_there(frame, event, arg):
    if event == "call" and sigterm.sigterm_is_interrupt() and at_the_place(frame):
        sys.setprofile(None)
        if {dropped}:
            Dropped()
        else:
            os.kill(os.getpid(), signal.SIGTERM)

sys.setprofile(send_there)
from mafia_arena.cli import main
main()
"""

PLACES = {
    "inside a string of code run by exec": ('return frame.f_code.co_filename == "<string>"', False),
    "inside a descriptor's __set_name__": ('return frame.f_code.co_name == "__set_name__"', False),
    "inside a __del__, where Python drops it": ("return True", True),
    "inside a __set_name__ once the driver runs (Ray imported)": (
        'return frame.f_code.co_name == "__set_name__" and in_the_driver(frame)',
        False,
    ),
}
ON_RAY = "inside a __set_name__ once the driver runs (Ray imported)"
PLACES["inside a __del__ once the driver runs, where Python drops it"] = (
    'return "ray" in frame.f_code.co_filename and in_the_driver(frame)',
    True,
)
RAY_PLACES = {ON_RAY, "inside a __del__ once the driver runs, where Python drops it"}


@pytest.mark.parametrize("place", list(PLACES))
def test_a_sigterm_while_starting_exits_130_wherever_it_lands(tmp_path: Path, place: str) -> None:
    test, dropped = PLACES[place]
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "stopped_command.py").write_text(CHILD.format(place=test, dropped=dropped))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(tmp_path)])}
    command = ["tournament", "spec.toml", "--no-tracking"]
    command += [] if place in RAY_PLACES else ["--no-ray"]
    done = subprocess.run(
        [sys.executable, "-m", "stopped_command", *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stderr.strip().splitlines()[-1]
    assert said in (STARTING_MESSAGE, "0 games stored; run the same command to resume"), said
    assert done.returncode == 130
    if not dropped:
        assert "Traceback" not in done.stderr

"""A SIGTERM that lands while Python runs a string of code still exits 130.

CPython 3.11 marks a `KeyboardInterrupt` raised inside `exec` or `eval` of a string
as unhandled even when it is caught, and then ends the process by SIGINT (status -2)
at exit. `dataclasses` builds its methods that way while modules are imported, so a
SIGTERM at the start of a tournament sometimes landed there: the command said that it
was interrupted while starting and how to start again, but exited -2, not 130. Here
the signal is sent as the first such string starts to run once SIGTERM is the
command's interrupt (a profile hook watches for it), which is where it landed. The
command runs as a module (``python -m``), as the console script does: ``python -c``
exits from inside its own error handling and never reads that mark.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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

def send_inside_a_string(frame, event, arg):
    if event == "call" and frame.f_code.co_filename == "<string>":
        if sigterm.sigterm_is_interrupt():
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGTERM)

sys.setprofile(send_inside_a_string)
from mafia_arena.cli import main
main()
"""


def test_a_sigterm_inside_a_string_of_code_while_starting_exits_130(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "stopped_command.py").write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(tmp_path)])}
    command = ["tournament", "spec.toml", "--no-ray", "--no-tracking"]
    done = subprocess.run(
        [sys.executable, "-m", "stopped_command", *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.strip() == STARTING_MESSAGE
    assert done.returncode == 130

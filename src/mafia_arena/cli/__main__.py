"""``python -m mafia_arena.cli``: the `mafia-arena` command (see `mafia_arena.cli`)."""

from mafia_arena.cli import main

if __name__ == "__main__":
    main()

"""The Palermo engine: forum clock, player states, intrigue cards, the mandatory vote.

A variant with a ``[palermo]`` table (envs/palermo.toml) is played by `flow.play`
instead of the generic night and day steps. The modules, one job each:

- `roles`: the role names the rules refer to and the three attributes of 2.1;
- `state`: `PalermoState`, everything one game tracks beyond `GameState`;
- `deal`: card counts and the exact deal of 2.3;
- `changes`: every state change (with its announcement and reveal) in one place;
- `moves`: the request of a timed phase and the dispatch of its choices;
- `cards`: which card plays are legal now and what they do (6.x);
- `night`: the Prostitute, the investigations, the assassination and NOON (5.x);
- `snitch`: the three snitches (8);
- `vote`: ballots, absences, the tally pipeline, the exit, the runoff (7);
- `checks`: imprisonment windows, the Rival Mafioso's activation, the win (3.6, 9);
- `moderator`: the moderator's penalty exit and sanction imprisonment (4.4);
- `flow`: the phases of a round, in order (3.2).
"""

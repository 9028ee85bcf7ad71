"""What the heuristic writes in a forum game (dictator), in German, in varied words.

The dictator variant is a German forum game: the game master's lines, statuses and
results are German ("P3 ist Mafioso.", "Du gehörst zu den Bürgern."), so the players
write German too. Each kind of message has several phrasings; a seat's `Phrasebook`
(`talk.phrasebook`, its own generator) picks one, never the same one twice running,
and some refer to what happened earlier (the last exit and its status).

What a reader parses is kept in every phrasing: a passed-on result always holds the
game master's own sentence "P<n> ist Mafioso." or "P<n> ist kein Mafioso." (the
forms `forum.GUILTY` and `forum.INNOCENT` read, the way a detective forwards his
answer), and nothing else ever does: thread posts, replies, ads and team messages
name seats in forms those readers, and `speech.claims.extract_claims`, do not take
for a result or a claim.
"""

from __future__ import annotations

from mafia_arena.speech.phrasing import Phrasebook

POSTS = (
    "Ich bin Bürger und beobachte die Abstimmungen.",
    "Wer war bisher so still?",
    "Lasst uns die nächste Hinrichtung nicht überstürzen.",
    "Der Diktator sollte seine Wahl erklären.",
    "Ich lese mit und halte die Augen offen.",
    "Mir fällt noch niemand Bestimmtes auf.",
    "Wer hat eigentlich wen zum Diktator gewählt?",
    "Die Stille in diesem Thread gefällt mir nicht.",
    "Ich warte noch ab, bevor ich jemanden beschuldige.",
    "Schreibt mehr, dann sehen wir klarer.",
)
"""Thread posts with nothing to go on (a mafioso's cover, a citizen without a lead)."""

SUSPECT_POSTS = (
    "Ich halte {t} für verdächtig.",
    "{t} kommt mir nicht geheuer vor.",
    "Mein Verdacht fällt auf {t}.",
    "Ich traue {t} nicht über den Weg.",
    "{t} sollte sich hier einmal erklären.",
    "Behaltet {t} im Auge.",
)
"""Thread posts naming the seat's prime suspect (``{t}``)."""

EXIT_POSTS = {
    "citizen": (
        "{s} war Bürger; das war ein Fehlgriff.",
        "Mit {s} haben wir einen Bürger verloren.",
        "{s} gehörte zu uns. Wer hat das zu verantworten?",
    ),
    "mafia": (
        "{s} war bei der Mafia, gut so.",
        "Endlich hat es mit {s} einen von der Mafia getroffen.",
        "{s} war Mafia; weiter so.",
    ),
    "hidden": (
        "Bei {s} wissen wir nicht, wofür er stand.",
        "{s} ist fort, und sein Status verrät uns nichts.",
    ),
}
"""A look back at the latest exit (``{s}``), by what its status showed."""

GUILTY_NOTES = (
    "{t} ist Mafioso. Bitte richte {t} hin.",
    "Mein Ergebnis: {t} ist Mafioso. Bitte handle danach.",
    "Ich weiß es sicher: {t} ist Mafioso. Die nächste Hinrichtung sollte {t} treffen.",
    "Glaub mir, {t} ist Mafioso. Zögere nicht.",
)
"""A private word that names a mafioso (``{t}``): each holds "P<n> ist Mafioso."."""

INNOCENT_NOTES = (
    "{t} ist kein Mafioso. Verschone {t}.",
    "Mein Ergebnis: {t} ist kein Mafioso.",
    "Zur Info: {t} ist kein Mafioso. Dem kannst du trauen.",
)
"""A private word that clears a seat (``{t}``): each holds "P<n> ist kein Mafioso."."""

REPLIES = (
    "Danke für deine Nachricht, {s}.",
    "Danke, {s}, ich habe es gelesen.",
    "Gut, dass du schreibst, {s}.",
    "{s}, deine Nachricht ist angekommen.",
    "Danke, {s}. Ich denke darüber nach.",
)
"""An answer to a seat (``{s}``) who wrote privately."""

REPLY_SUSPECTS = (
    " Ich verdächtige {t}.",
    " Mein Verdacht fällt auf {t}.",
    " Pass auf {t} auf.",
)
"""What a citizen adds to an answer about his prime suspect (``{t}``)."""

TEAM_NOTES = (
    "Haltet still; stimmt mit uns.",
    "Ruhig bleiben und gemeinsam abstimmen.",
    "Wir stimmen zusammen ab und verraten nichts.",
    "Nichts Auffälliges schreiben; wir halten zusammen.",
)
"""A mafioso's message to his comrades."""

QUESTIONS = (
    "Wem vertraust du?",
    "Wen hältst du für verdächtig?",
    "Was hältst du vom Diktator?",
    "Hast du schon einen Verdacht?",
)
"""A citizen's private question to a seat of his choosing."""

WATCH_ADS = (
    "Beobachtet {t}.",
    "Achtet auf {t}.",
    "Ein Hinweis an alle: {t} genau ansehen.",
)
"""A newspaper ad about the seat's prime suspect (``{t}``)."""

ADS = (
    "Hier ist jemand nicht der, der er zu sein vorgibt.",
    "Folgt den Stimmen, nicht den Worten.",
    "Die Nacht war zu ruhig.",
    "Wer schweigt, hat etwas zu verbergen.",
    "Die Mafia liest mit.",
)
"""Newspaper ads with nothing to go on."""

DEATH_NOTES = (
    "{t} wurde im Morgengrauen mit einer einzelnen schwarzen Rose gefunden.",
    "{t} trieb am Morgen im Fluss.",
    "Von {t} blieb nur ein Hut auf der Straße zurück.",
    "{t} hat den Kaffee nicht vertragen.",
)
"""The mafia's death message for its victim (``{t}``)."""

LAST_WORDS = (
    "Ich habe bis zum Ende für meine Seite gespielt.",
    "Macht es gut; findet die Mafia.",
    "Ich war ehrlich zu euch.",
)
"""A testament with no results to pass on."""


def say(book: Phrasebook, key: str, options: tuple[str, ...], **names: str) -> str:
    """One of `options` (picked by the seat's phrasebook under `key`), filled in."""
    return book.pick(key, options).format(**names)


def every(options: tuple[str, ...], **names: str) -> list[str]:
    """Every phrasing of `options`, filled in (what the tests read back)."""
    return [o.format(**names) for o in options]

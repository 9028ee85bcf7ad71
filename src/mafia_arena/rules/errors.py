"""The one error a broken variant file produces."""


class VariantError(ValueError):
    """A variant file or override is invalid.

    The message always names the file, the key (a dotted path) and the reason, so a
    user who edits `envs/*.toml` can fix it without reading the engine.
    """

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")

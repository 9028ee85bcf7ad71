"""Mafia Arena: a rules engine, environments and tournaments for the game of Mafia."""

__version__ = "0.1.0"

"""The host key that test games hand their players' seat seeds from.

Without a key, each game draws a fresh random one (the product's default: a seat's seed
then never gives the deal away, and nothing about one game tells the next), so the same
game seed brings different posts, targets and votes from scripted players in every run.
A test that reads what its players did, or plays games that must fail the same way
twice, passes this key: same seed and key, same seat seeds, same game.
"""

FIXED_HOST_KEY = bytes(range(32))

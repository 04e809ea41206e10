"""The card art moved to `vision.card_art` (product data the recogniser enrols); this name is kept
so that older imports still work. New code imports `vision.card_art`."""

from vision.card_art import *  # noqa: F403
from vision.card_art import _face  # noqa: F401

"""referee layer (see DESIGN.md)."""

"""vision layer (see DESIGN.md)."""

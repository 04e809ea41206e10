"""The `tabletop` command line: wires the layers together. Nothing imports this package."""

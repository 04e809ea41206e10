"""The referee: the rules engines, the service that runs them, its event store and wire protocol
(docs/architecture.md)."""

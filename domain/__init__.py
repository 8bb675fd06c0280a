"""The neutral domain layer: rules of the contact's world that the write side (agents/, streams/) and the
read side (projections/) both apply, and that import neither: decay, relationship stages, the contact's
event-time clock, entities and their mentions, sessions' gap, the one tokeniser and stop-word list, the
embedder. Pure functions over plain data (the embedder aside, a model behind a small interface); below
them only schemas/. The layer order is held by import-linter ([tool.importlinter] in pyproject.toml)."""

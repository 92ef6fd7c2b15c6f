"""What replaying each action type does: idempotent executors registered by type, and the chain replay engine."""

"""The durable record layer: record files, file operations and the home directory. Only ``chains/`` writes here."""

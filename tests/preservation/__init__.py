"""Definition preservation, as a property (issue 25): a statement that rebuilds, copies or replaces a table leaves
whatever it does not name exactly as plain Spark leaves it (see ``conftest.py`` for how the properties run)."""

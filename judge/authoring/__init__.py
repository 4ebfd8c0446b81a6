"""For package authors: ``judge verify`` (every example submission gets what its author expects,
``expectations``)."""

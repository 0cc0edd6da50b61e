"""Gateway adapters: one folder per gateway (its adapter, catalog row and pay-page driver),
the shared ``kit`` and the ``registry`` that lists the folders (see ``folder.py``)."""

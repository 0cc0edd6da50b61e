"""The public JSON shape of payhub's objects: what the HTTP API returns for them.

These ``msgspec`` structs are shared by the HTTP shell (its responses and the OpenAPI schemas)
and by the domain events' snapshots (``snapshots.WireSnapshots``, the ``Snapshots`` port),
so an event's ``data`` is the object exactly as the API returns it. Not part of the core: it
presents domain objects and may import the domain and service result types, never the shell.
Request (``…In``) structs stay beside their routes.
"""

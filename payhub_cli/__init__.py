"""The ``payhub`` command: the operator's and the admin portal's jobs over the same services."""

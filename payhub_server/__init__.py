"""The HTTP shell: Litestar routes that translate HTTP to payhub service calls and back."""

from payhub_server.app import create_app

__all__ = ["create_app"]

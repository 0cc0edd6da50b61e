"""Braintree's GraphQL documents, validated with graphql-core (see SOURCE)."""

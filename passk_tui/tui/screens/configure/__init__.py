"""The Configure screen and its form: fields, cost fields, last-used settings."""

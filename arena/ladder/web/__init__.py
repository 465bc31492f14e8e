"""The ladder's pages and API: a Starlette app (app.py) over read-only queries of the
ladder's store, with sign-in, per-form tokens and owner-only logs."""
